#!/bin/sh
# The sign-off PDF of every example scenario, checked with tools that know
# nothing of our code: qpdf's structural check, pdffonts (every font
# embedded), pdftotext against a golden text, two runs byte for byte, and
# the demo under 300 KB.  Also US Letter and a title long enough to wrap.
#   sh tests/cli-pdf.sh BIN            check
#   UPDATE_GOLDEN=1 sh tests/cli-pdf.sh BIN   rewrite tests/golden/*.pdf.txt
set -eu
BIN=${1:?usage: sh tests/cli-pdf.sh BIN}
for t in qpdf pdffonts pdftotext pdfinfo; do
	command -v "$t" >/dev/null || { echo "cli-pdf: $t missing (qpdf, poppler-utils)" >&2; exit 1; }
done
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-pdf.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
# reports are dated from the scenario, else from SOURCE_DATE_EPOCH: pin it
SOURCE_DATE_EPOCH=1735689600
export SOURCE_DATE_EPOCH
fails=0
n=0
fail() { echo "cli-pdf: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }

# Structure, fonts, determinism; $1 the PDF, $2 how it was made, $3 the rerun.
check_pdf() {
	if qpdf --check "$1" >"$T/qpdf.txt" 2>&1; then ok "qpdf --check $2"; else fail "qpdf --check $2: $(tail -3 "$T/qpdf.txt")"; fi
	# pdffonts: two header lines, then a line per font ending in
	# "emb sub uni object ID": emb is the fifth field from the end
	# poppler says nothing on stderr about a valid file: any warning fails
	# (libharu's CID-range ToUnicode maps drew 38 a file)
	pdffonts "$1" >/dev/null 2>"$T/poppler.txt"
	pdftotext "$1" /dev/null 2>>"$T/poppler.txt"
	if [ -s "$T/poppler.txt" ]; then fail "poppler warns about $2: $(sort -u "$T/poppler.txt" | head -3)"; else ok "poppler reads $2 without a warning"; fi
	fonts=$(pdffonts "$1" 2>/dev/null | tail -n +3)
	if [ -n "$fonts" ] && ! printf '%s\n' "$fonts" | awk '{ if ($(NF-4) != "yes") bad = 1 } END { exit bad }'; then
		fail "a font is not embedded in $2: $fonts"
	else
		ok "every font embedded in $2"
	fi
	if cmp -s "$1" "$3"; then ok "two runs byte-identical: $2"; else fail "two runs differ: $2"; fi
}

for f in docs/examples/*.yaml; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .yaml)
	n=$((n + 1))
	mkdir -p "$T/a" "$T/b"
	if ! "$BIN" report "$f" -o "$T/a" --format pdf >/dev/null 2>"$T/err.txt"; then
		fail "report $f --format pdf: $(cat "$T/err.txt")"
		continue
	fi
	"$BIN" report "$f" -o "$T/b" --format pdf >/dev/null 2>&1 || true
	pdf="$T/a/$name.pdf"
	[ -s "$pdf" ] || { fail "no $name.pdf written"; continue; }
	check_pdf "$pdf" "$name.pdf" "$T/b/$name.pdf"
	pdftotext -layout "$pdf" "$T/$name.txt" 2>/dev/null
	golden="tests/golden/$name.pdf.txt"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		mkdir -p tests/golden
		cp "$T/$name.txt" "$golden"
		ok "wrote $golden"
	elif [ ! -f "$golden" ]; then
		fail "$golden missing (UPDATE_GOLDEN=1 sh tests/cli-pdf.sh BIN writes it)"
	elif cmp -s "$T/$name.txt" "$golden"; then
		ok "pdftotext $name.pdf matches $golden"
	else
		fail "pdftotext $name.pdf differs from $golden:
$(diff "$golden" "$T/$name.txt" | head -20)"
	fi
	if [ "$name" = default-7b ]; then
		size=$(wc -c <"$pdf")
		if [ "$size" -lt 307200 ]; then ok "demo PDF is $size bytes (< 300 KB)"; else fail "demo PDF is $size bytes; expected < 300 KB"; fi
	fi
done
[ "$n" -gt 0 ] || echo "cli-pdf: note - no docs/examples/*.yaml yet"

# Comparisons and sweeps: the same checks, and their text against
# tests/golden/compare/ and tests/golden/sweep/.
pdf_set() {
	p_name=$1 p_golden=$2
	shift 2
	rm -rf "$T/c1" "$T/c2"
	if ! "$BIN" "$@" -o "$T/c1" --format pdf >/dev/null 2>"$T/err.txt"; then
		fail "$* --format pdf: $(cat "$T/err.txt")"
		return
	fi
	"$BIN" "$@" -o "$T/c2" --format pdf >/dev/null 2>&1 || true
	check_pdf "$T/c1/$p_name.pdf" "$p_golden" "$T/c2/$p_name.pdf"
	pdftotext -layout "$T/c1/$p_name.pdf" "$T/c1/out.txt" 2>/dev/null
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$T/c1/out.txt" "$p_golden"
		ok "wrote $p_golden"
	elif cmp -s "$T/c1/out.txt" "$p_golden"; then
		ok "pdftotext $p_name.pdf matches $p_golden"
	else
		fail "pdftotext $p_name.pdf differs from $p_golden:
$(diff "$p_golden" "$T/c1/out.txt" | head -20)"
	fi
}
C=docs/examples/compare
S=docs/examples/sweep
pdf_set h100-512-6w-vs-a100-1024-8w tests/golden/compare/two-proposals.pdf.txt compare "$C/h100-512-6w.yaml" "$C/a100-1024-8w.yaml"
pdf_set 7b-2t-vs-13b-1t-vs-13b-1t-128 tests/golden/compare/three-proposals.pdf.txt compare "$C/7b-2t.yaml" "$C/13b-1t.yaml" "$C/13b-1t-128.yaml"
pdf_set 70b-2t-h100 tests/golden/sweep/hardware-count.pdf.txt report "$S/70b-2t-h100.yaml" --sweep hardware.count=64..65536:x2
pdf_set 70b-128-h100 tests/golden/sweep/micro-batch.pdf.txt report "$S/70b-128-h100.yaml" --sweep training.micro_batch=1..8
pdf_set 70b-128-h100 tests/golden/sweep/seq-len.pdf.txt report "$S/70b-128-h100.yaml" --sweep training.seq_len=1024..32768:x2
pdf_set 70b-128-h100 tests/golden/sweep/grid.pdf.txt report "$S/70b-128-h100.yaml" --sweep training.micro_batch=1..6 --sweep training.seq_len=2048,4096,8192,16384
pdf_set llama3-8b-1024 tests/golden/pilot/calibrated.pdf.txt report docs/examples/pilot/llama3-8b-1024.yaml --calibrate docs/examples/pilot/llama3-8b-pilot.yaml

demo=docs/examples/default-7b.yaml
if [ -e "$demo" ]; then
	# US Letter: the page size changes, the checks hold
	mkdir -p "$T/l1" "$T/l2"
	if "$BIN" report "$demo" -o "$T/l1" --format pdf --paper letter >/dev/null 2>"$T/err.txt"; then
		"$BIN" report "$demo" -o "$T/l2" --format pdf --paper letter >/dev/null 2>&1 || true
		check_pdf "$T/l1/default-7b.pdf" "default-7b.pdf (letter)" "$T/l2/default-7b.pdf"
		pdfinfo "$T/l1/default-7b.pdf" 2>/dev/null | grep -q '612 x 792 pts (letter)' \
			&& ok "--paper letter gives 612 x 792 pt pages" || fail "--paper letter page size"
	else
		fail "--paper letter: $(cat "$T/err.txt")"
	fi
	# A title long enough to wrap on page 1 and be cut in the running header
	long="A very long title for a training run that has to wrap onto more than one line on the first page of the sign-off document, with symbols × ≈ ≤ € µ²"
	mkdir -p "$T/t"
	if "$BIN" report "$demo" -o "$T/t" --format pdf --set "title=$long" >/dev/null 2>"$T/err.txt"; then
		pdftotext "$T/t/default-7b.pdf" "$T/t.txt" 2>/dev/null
		tr '\n' ' ' <"$T/t.txt" | grep -q 'symbols × ≈ ≤ € µ²' \
			&& ok "a long title wraps and keeps its symbols" || fail "long title text"
		grep -q '…' "$T/t.txt" && ok "the running header cuts a long title with an ellipsis" \
			|| fail "running header of a long title"
	else
		fail "--set title=...: $(cat "$T/err.txt")"
	fi
	# Scripts DejaVu lacks come from fallback fonts (.ci/deps test installs
	# fonts-droid-fallback and fonts-symbola); right-to-left text and
	# Arabic from DejaVu itself
	if [ -r /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf ] &&
	   [ -r /usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf ]; then
		mkdir -p "$T/s1" "$T/s2"
		title="训练预算 日本語 שלום مرحبا 🚀"
		if "$BIN" report "$demo" -o "$T/s1" --format pdf --set "title=$title" --set "author=山田太郎" >/dev/null 2>"$T/err.txt"; then
			"$BIN" report "$demo" -o "$T/s2" --format pdf --set "title=$title" --set "author=山田太郎" >/dev/null 2>&1 || true
			check_pdf "$T/s1/default-7b.pdf" "a CJK, Hebrew, Arabic and emoji title" "$T/s2/default-7b.pdf"
			pdftotext "$T/s1/default-7b.pdf" "$T/s.txt" 2>/dev/null
			for w in 训练预算 日本語 שלום مرحبا 🚀 山田太郎; do
				grep -q "$w" "$T/s.txt" && ok "the title's $w is drawn and reads back" || fail "$w missing from the PDF's text"
			done
			pdffonts "$T/s1/default-7b.pdf" 2>/dev/null | grep -q DroidSansFallback && ok "the CJK fallback font is embedded" || fail "no DroidSansFallback in pdffonts"
		else
			fail "a CJK title: $(cat "$T/err.txt")"
		fi
	else
		echo "cli-pdf: note - fonts-droid-fallback or fonts-symbola missing: fallback fonts not checked (sh .ci/deps test)"
	fi
	# Any nesting depth renders or is refused cleanly: the template loader
	# refuses trees deeper than its limit; the PDF's walk is iterative
	# anyway (test_render_pdf.c draws 20,000 levels).  Never a crash.
	python3 -c "print('> '*30000+'x')" >"$T/deep-quote.md"
	python3 -c "print('- '*20000+'x')" >"$T/deep-list.md"
	python3 -c "print(''.join('*a **b ' for i in range(20000)) + 'deepest' + ''.join('** d*' for i in range(20000)))" >"$T/deep-emph.md"
	python3 -c "print('> '*20+'- '*8+'x')" >"$T/deep-some.md"
	for q in deep-quote deep-list deep-emph deep-some; do
		mkdir -p "$T/$q"
		rc=0
		"$BIN" report "$demo" --template "$T/$q.md" -o "$T/$q" --format pdf >/dev/null 2>"$T/err.txt" || rc=$?
		if [ "$rc" -eq 0 ]; then
			pdftotext "$T/$q/default-7b.pdf" "$T/$q.txt" 2>/dev/null
			if grep -q -e '^x$' -e '• x$' -e deepest "$T/$q.txt"; then ok "$q.md renders, its innermost text on the page"
			else fail "$q.md: the innermost text is missing"; fi
		elif [ "$rc" -eq 1 ] && grep -q 'error:' "$T/err.txt" && [ ! -e "$T/$q/default-7b.pdf" ]; then
			ok "$q.md is refused cleanly: $(head -1 "$T/err.txt" | cut -c1-100)"
		else
			fail "$q.md: exit $rc: $(head -c 300 "$T/err.txt")"
		fi
	done
	# A missing font is a clear error, and no PDF is left behind
	mkdir -p "$T/nf"
	if "$BIN" report "$demo" -o "$T/nf" --format pdf --font-dir "$T/none" >/dev/null 2>"$T/err.txt"; then
		fail "--font-dir to an empty place should fail"
	else
		grep -q 'DejaVuSans.ttf' "$T/err.txt" && ok "a missing font is named in the error" \
			|| fail "missing font error: $(cat "$T/err.txt")"
		[ ! -e "$T/nf/default-7b.pdf" ] && ok "no PDF left after a font error" || fail "a PDF was left after a font error"
	fi
	# A FIFO nobody writes to, in the font folder, is an error at once, never
	# a wait (issue 18: it blocked for ever)
	mkdir -p "$T/fifo-fonts" "$T/ff"
	cp "$(dirname "$BIN")"/fonts/*.ttf "$T/fifo-fonts/" 2>/dev/null || cp build/fonts/*.ttf "$T/fifo-fonts/"
	rm -f "$T/fifo-fonts/DejaVuSans.ttf"
	mkfifo "$T/fifo-fonts/DejaVuSans.ttf"
	rc=0
	timeout 30 "$BIN" report "$demo" -o "$T/ff" --format pdf --font-dir "$T/fifo-fonts" >/dev/null 2>"$T/err.txt" || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && grep -q 'DejaVuSans.ttf: error: cannot read font: nothing to read: a pipe' "$T/err.txt" \
		&& [ ! -e "$T/ff/default-7b.pdf" ]; then
		ok "a FIFO as a font is named at once, and no PDF is written"
	else
		fail "FIFO font (exit $rc): $(cat "$T/err.txt")"
	fi
	# Damaged faces never give a PDF without its text (issue 18): a loca that
	# points past glyf (every glyph drew empty, exit 0), and a character map
	# that sends 'A' to the empty space glyph.  Both: refused, the file named,
	# exit 3, nothing written.
	if /usr/bin/python3 -c 'import fontTools' 2>/dev/null; then
		for damage in loca cmap; do
			rm -rf "$T/dmg" "$T/dmg-out"
			mkdir -p "$T/dmg" "$T/dmg-out"
			cp "$T/fifo-fonts"/DejaVuSans-Bold.ttf "$T/fifo-fonts"/DejaVuSansMono.ttf "$T/dmg/"
			/usr/bin/python3 - "$damage" "$(dirname "$BIN")/fonts/DejaVuSans.ttf" "$T/dmg/DejaVuSans.ttf" <<'PY'
import struct, sys
from fontTools.ttLib import TTFont
damage, src, dst = sys.argv[1:]
if damage == 'cmap':
    f = TTFont(src)
    for t in f['cmap'].tables:
        if 0x41 in t.cmap:
            t.cmap[0x41] = 'space'
    f.save(dst)
else:
    d = bytearray(open(src, 'rb').read())
    n = struct.unpack('>H', d[4:6])[0]
    tabs = {}
    for i in range(n):
        tag, _, off, ln = struct.unpack('>4sIII', d[12 + 16 * i:28 + 16 * i])
        tabs[tag] = (off, ln)
    head = tabs[b'head'][0]
    lo, ll = tabs[b'loca']
    gl = tabs[b'glyf'][1]
    long_loca = struct.unpack('>h', d[head + 50:head + 52])[0] == 1
    step = 4 if long_loca else 2
    for i in range(ll // step):
        v = (gl + 64 + i) if long_loca else min(0xFFFF, gl // 2 + 32 + i)
        struct.pack_into('>I' if long_loca else '>H', d, lo + step * i, v)
    open(dst, 'wb').write(bytes(d))
PY
			rc=0
			"$BIN" report "$demo" -o "$T/dmg-out" --format pdf --font-dir "$T/dmg" >/dev/null 2>"$T/err.txt" || rc=$?
			if [ "$rc" -eq 3 ] && grep -q "^$T/dmg/DejaVuSans.ttf: error: " "$T/err.txt" \
				&& ! grep -q 'Debian package fonts-\|install Debian' "$T/err.txt" && [ ! -e "$T/dmg-out/default-7b.pdf" ]; then
				ok "a damaged $damage: refused, the font named, exit 3, no PDF"
			else
				fail "damaged $damage (exit $rc): $(cat "$T/err.txt")"
			fi
		done
	fi
fi

# ---- links: an annotation wherever a link's text lands (issue 23) --------
mkdir -p "$T/lk"
cp tests/templates/links.md "$T/lk/links.md"
if "$BIN" report docs/examples/default-7b.yaml --template "$T/lk/links.md" --format pdf -o "$T/lk/out" >/dev/null 2>"$T/err.txt"; then
	pdf="$T/lk/out/default-7b.pdf"
	qpdf --json "$pdf" >"$T/lk/json" 2>/dev/null || true
	links=$(grep -c '"/Subtype": "/Link"' "$T/lk/json" || true)
	if [ "$links" = 5 ] && grep -q '"/URI": "u:https://wiki.example/page"' "$T/lk/json" &&
	   grep -q '"/URI": "u:./notes.md"' "$T/lk/json" && grep -q '"/URI": "u:mailto:a@b.example"' "$T/lk/json" &&
	   [ "$(grep -c '"/URI": "u:https://example.org/a%20b?q=(x)"' "$T/lk/json")" = 2 ]; then
		ok "links are annotations with their URLs, a wrapped one on each of its lines"
	else
		fail "links: $links link annotations: $(grep '"/URI"' "$T/lk/json" | head -5)"
	fi
	"$BIN" report docs/examples/default-7b.yaml --template "$T/lk/links.md" --format pdf -o "$T/lk/again" >/dev/null 2>&1 || true
	check_pdf "$pdf" "a report with links" "$T/lk/again/default-7b.pdf"
	# tagged: each link a Link element holding its text and its annotation
	nlink=$(pdfinfo -struct "$pdf" 2>/dev/null | grep -c '^ *Link (inline)' || true)
	nobjr=$(pdfinfo -struct "$pdf" 2>/dev/null | grep -A1 '^ *Link (inline)$' | grep -c '^ *Object [0-9]* 0$' || true)
	if [ "$nlink" = 5 ] && [ "$nobjr" = 5 ]; then
		ok "each link is a Link element with its text and its annotation (5)"
	else
		fail "Link elements: $nlink, annotation references: $nobjr"
	fi
	if pdftotext "$pdf" - 2>/dev/null | grep -q 'See the wiki, a relative one and mail'; then
		ok "a link's text reads as text"
	else
		fail "a link's text: $(pdftotext "$pdf" - 2>/dev/null | head -3)"
	fi
else
	fail "report with links: $(cat "$T/err.txt")"
fi

# ---- scripts: shaped by HarfBuzz, ordered by FriBidi (issue 23) ----------
# pdftotext gives each right-to-left stretch between U+202B and U+202C in
# logical order and the stretches in the order they stand on the line (its
# convention for every producer), so a word or number read back whole is a
# word or number that was drawn right: the old drawing read back 5.234,1
# and %10.
mkdir -p "$T/sc"
if "$BIN" report docs/examples/default-7b.yaml --template tests/templates/scripts.md --format pdf -o "$T/sc/a" >/dev/null 2>"$T/err.txt"; then
	pdf="$T/sc/a/default-7b.pdf"
	pdftotext -f 1 -l 1 "$pdf" "$T/sc/txt" 2>/dev/null || true
	missing=""
	# each word or number as written in tests/templates/scripts.md
	for word in "1,234.5" \
	            "10%" \
	            "التكلفة" \
	            "دولار" \
	            "מחיר" \
	            "מס" \
	            "مرحبا" \
	            "عالم" \
	            "پگچژ" \
	            "فارسی" \
	            "हिन्दी में नमस्ते दुनिया" \
	            "ภาษาไทยเป็นภาษาที่มีระดับเสียง" \
	            "AVATAR Te Wa yo 1,234.5 GPU-hours"; do
		grep -qF -- "$word" "$T/sc/txt" || missing="$missing [$word]"
	done
	if [ -z "$missing" ] && [ "$(grep -cF '1,234.5' "$T/sc/txt")" = 3 ] &&
	   ! grep -qF -e '5.234,1' -e '%10' "$T/sc/txt"; then
		ok "Arabic, Hebrew, Persian, Devanagari and Thai read back as written, numbers whole"
	else
		fail "scripts read back wrong:$missing: $(head -8 "$T/sc/txt")"
	fi
	# the Thai paragraph, written without spaces between words, wraps
	# between two words (ICU's dictionary), not inside one; the Chinese between
	# two ideographs
	if grep -q '^ภาษาราชการของประเทศไทย' "$T/sc/txt" && grep -q 'ภาษาไทยเป็น$' "$T/sc/txt" &&
	   grep -q '^算给出一个可以签字的答案' "$T/sc/txt"; then
		ok "Thai wraps between words, Chinese between characters"
	else
		fail "Thai or Chinese wrapped wrong: $(sed -n 9,14p "$T/sc/txt")"
	fi
	"$BIN" report docs/examples/default-7b.yaml --template tests/templates/scripts.md --format pdf -o "$T/sc/b" >/dev/null 2>&1 || true
	check_pdf "$pdf" "a report in six scripts" "$T/sc/b/default-7b.pdf"
	# the lines as drawn, against the reference image (looked at when it
	# was made: joined, marks on their letters, numbers and brackets right)
	pdftoppm -gray -r 100 -f 1 -l 1 -x 0 -y 124 -W 827 -H 230 "$pdf" "$T/sc/page" 2>/dev/null
	ref=tests/golden/scripts-page1.pgm.gz
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		gzip -9n <"$T/sc/page-1.pgm" >"$ref"
		ok "wrote $ref"
	elif out=$(python3 tests/pixels.py "$T/sc/page-1.pgm" "$ref" 2>&1); then
		ok "the scripts page matches its reference image: $out"
	else
		fail "the scripts page differs from $ref: $out"
	fi
else
	fail "report with scripts: $(cat "$T/err.txt")"
fi

# ---- signature fields: one unsigned field per role on the sign-off page --
mkdir -p "$T/sig"
if "$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/sig" >/dev/null 2>"$T/err.txt"; then
	qpdf --json "$T/sig/default-7b.pdf" >"$T/sig/json" 2>/dev/null || true
	fields=$(python3 -c '
import json, sys
a = json.load(open(sys.argv[1]))["acroform"]
print(" ".join("%s:%s" % (f["fullname"], f["fieldtype"]) for f in a["fields"]))
' "$T/sig/json" 2>/dev/null || true)
	if [ "$fields" = "Requester:/Sig Reviewer:/Sig Approver:/Sig" ]; then
		ok "qpdf --json lists the unsigned signature fields: $fields"
	else
		fail "signature fields: '$fields'"
	fi
	if grep -q '"/Lang": "u:en"' "$T/sig/json"; then ok "the catalog says the document's language (/Lang en)"; else fail "no /Lang en"; fi
	"$BIN" report docs/examples/default-7b.yaml --set lang=pt-BR --format pdf -o "$T/sig/pt" >/dev/null 2>&1 || true
	if qpdf --json "$T/sig/pt/default-7b.pdf" 2>/dev/null | grep -q '"/Lang": "u:pt-BR"'; then
		ok "lang: pt-BR becomes /Lang pt-BR"
	else
		fail "lang pt-BR is not the PDF's /Lang"
	fi
	nform=$(pdfinfo -struct "$T/sig/default-7b.pdf" 2>/dev/null | grep -A1 '^ *Form$' | grep -c '^ *Object [0-9]* 0$' || true)
	if [ "$nform" = 3 ]; then
		ok "each signature field is a Form element holding its widget (3)"
	else
		fail "Form elements with their widgets: $nform"
	fi
	last=$(pdfinfo "$T/sig/default-7b.pdf" 2>/dev/null | awk '/^Pages:/ { print $2 }')
	if [ "$(grep -c '"/FT": "/Sig"' "$T/sig/json")" = 3 ] && [ -n "$last" ]; then
		ok "the fields are widgets on the sign-off page ($last)"
	else
		fail "signature widgets: $(grep -c '"/FT": "/Sig"' "$T/sig/json")"
	fi
	# the roles a template names, in its order, any script
	printf '# Budget\n\n{{signoff Requester, Finance lead, Approver, S\303\244kerhet}}\n\nText.\n' >"$T/sig/roles.md"
	"$BIN" report docs/examples/default-7b.yaml --template "$T/sig/roles.md" --format pdf,md -o "$T/sig/r" >/dev/null 2>&1 || true
	fields=$(qpdf --json "$T/sig/r/default-7b.pdf" 2>/dev/null | python3 -c '
import json, sys
print("|".join(f["fullname"] for f in json.load(sys.stdin)["acroform"]["fields"]))
' 2>/dev/null || true)
	if [ "$fields" = "Requester|Finance lead|Approver|Säkerhet" ] && ! grep -q signoff "$T/sig/r/default-7b.md"; then
		ok "{{signoff ...}} names the fields: $fields (and draws nothing where it stands)"
	else
		fail "template-named roles: '$fields'"
	fi
else
	fail "report for signature fields: $(cat "$T/err.txt")"
fi

# ---- scripts beyond the subset: the system's whole DejaVu, not the subset
# again (the font folder's DejaVuSans.ttf is the build's subset) ----------
printf '# S\n\nՀայերեն ქართული\n' >"$T/armenian.md"
if "$BIN" report docs/examples/default-7b.yaml --template "$T/armenian.md" --format pdf -o "$T/arm" >/dev/null 2>"$T/err.txt" &&
   pdftotext -l 1 "$T/arm/default-7b.pdf" - 2>/dev/null | grep -q '^Հայերեն ქართული$' &&
   [ "$(pdffonts "$T/arm/default-7b.pdf" 2>/dev/null | grep -c '+DejaVuSans ')" = 2 ]; then
	ok "Armenian and Georgian come from the whole DejaVu face, the subset's fallback"
else
	fail "Armenian and Georgian: $(head -2 "$T/err.txt") $(pdffonts "$T/arm/default-7b.pdf" 2>&1 | tail -n +3)"
fi

# ---- hostile text: 70,000 marks on one letter (HarfBuzz 6 aborts on an
# attachment chain that long, as it did here: runs are bounded) ---------
{ printf '# S\n\nq'; yes "$(printf '\314\201')" | head -n 70000 | tr -d '\n'; printf '\n'; } >"$T/marks.md"
rc=0
"$BIN" report docs/examples/default-7b.yaml --template "$T/marks.md" --format pdf -o "$T/marks" >/dev/null 2>"$T/err.txt" || rc=$?
if [ "$rc" -eq 0 ] && [ -s "$T/marks/default-7b.pdf" ] && qpdf --check "$T/marks/default-7b.pdf" >/dev/null 2>&1; then
	ok "a letter with 70,000 marks is drawn, not an abort"
else
	fail "70,000 marks (exit $rc): $(tail -2 "$T/err.txt")"
fi

# ---- PostScript (CFF) outlines: hb-subset's subset, as CIDFontType0 ------
# tests/fixtures/fonts: DejaVu's ASCII letters redrawn as CFF, name-keyed and
# CID-keyed (CIDs that are not glyph ids), made by tests/mkcff.py.  As the
# regular face, each draws the first page as the TrueType face does (within
# tests/pixels.py's anti-aliasing tolerance: the rasteriser differs);
# as the CJK fallback (the font folder's copy of Noto CJK's file name), the
# Hangul it maps reads back.
FONTS=$(dirname "$BIN")/fonts
"$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/cff-ref" >/dev/null 2>&1 || true
for kind in name cid; do
	rm -rf "$T/cff-$kind"
	mkdir -p "$T/cff-$kind/fonts"
	cp "$FONTS/DejaVuSans-Bold.ttf" "$FONTS/DejaVuSansMono.ttf" "$T/cff-$kind/fonts/"
	cp "tests/fixtures/fonts/cff-$kind.otf" "$T/cff-$kind/fonts/DejaVuSans.ttf"
	rc=0
	"$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/cff-$kind/out" \
		--font-dir "$T/cff-$kind/fonts" >/dev/null 2>"$T/err.txt" || rc=$?
	pdf="$T/cff-$kind/out/default-7b.pdf"
	if [ "$rc" -eq 0 ] && pdffonts "$pdf" 2>&1 | grep -q "TestCFF-$kind-TB-[A-Z]* *CID Type 0C *Custom *yes yes yes" &&
	   [ -z "$(pdffonts "$pdf" 2>&1 >/dev/null)" ] && [ -z "$(pdftotext "$pdf" /dev/null 2>&1)" ] &&
	   qpdf --check "$pdf" >/dev/null 2>&1 &&
	   [ "$(pdftotext "$pdf" - 2>/dev/null)" = "$(pdftotext "$T/cff-ref/default-7b.pdf" - 2>/dev/null)" ] &&
	   pdftoppm -r 100 -gray -f 1 -l 1 "$pdf" "$T/cff-$kind/a" && pdftoppm -r 100 -gray -f 1 -l 1 "$T/cff-ref/default-7b.pdf" "$T/cff-$kind/b" &&
	   python3 tests/pixels.py "$T/cff-$kind"/a-*.pgm "$T/cff-$kind"/b-*.pgm >/dev/null 2>&1; then
		ok "a $kind-keyed CFF face: embedded as CID Type 0C, the same text and the same pixels as TrueType"
	else
		fail "$kind-keyed CFF face (exit $rc): $(head -2 "$T/err.txt"); $(pdffonts "$pdf" 2>&1 | head -4)"
	fi
done
rm -rf "$T/cff-fb"
mkdir -p "$T/cff-fb/fonts"
cp "$FONTS"/DejaVuSans*.ttf "$T/cff-fb/fonts/"
cp tests/fixtures/fonts/cff-cid.otf "$T/cff-fb/fonts/NotoSansCJK-Regular.ttc"
printf '# Hangul\n\n\355\225\234\352\265\255\354\226\264 \353\263\264\352\263\240\354\204\234\n' >"$T/hangul.md"
rc=0
"$BIN" report docs/examples/default-7b.yaml --template "$T/hangul.md" --format pdf -o "$T/cff-fb/out" \
	--font-dir "$T/cff-fb/fonts" >/dev/null 2>"$T/err.txt" || rc=$?
if [ "$rc" -eq 0 ] && pdftotext "$T/cff-fb/out/default-7b.pdf" - 2>/dev/null | grep -q "^$(printf '\355\225\234\352\265\255\354\226\264 \353\263\264\352\263\240\354\204\234')\$" &&
   pdffonts "$T/cff-fb/out/default-7b.pdf" 2>&1 | grep -q 'TestCFF-cid.*CID Type 0C'; then
	ok "Korean from a CID-keyed CFF fallback reads back"
else
	fail "Korean from a CFF fallback (exit $rc): $(head -2 "$T/err.txt")"
fi
# a variable PostScript font (CFF2) is named and refused as a face, no PDF
/usr/bin/python3 - tests/fixtures/fonts/cff-name.otf "$T/cff-name/fonts/DejaVuSans.ttf" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
n = int.from_bytes(d[4:6], 'big')
for i in range(n):
    if d[12 + 16 * i:16 + 16 * i] == b'CFF ':
        d[12 + 16 * i:16 + 16 * i] = b'CFF2'
open(sys.argv[2], 'wb').write(bytes(d))
PY
rc=0
"$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/cff2" --font-dir "$T/cff-name/fonts" >/dev/null 2>"$T/err.txt" || rc=$?
if [ "$rc" -eq 3 ] && grep -q 'DejaVuSans.ttf: error: cannot read font: it has variable PostScript outlines (CFF2); expected TrueType or CFF outlines' "$T/err.txt" &&
   [ ! -e "$T/cff2/default-7b.pdf" ]; then
	ok "a CFF2 face is refused by name, exit 3, no PDF"
else
	fail "CFF2 face (exit $rc): $(head -2 "$T/err.txt")"
fi

# ---- the text libraries missing: complex text refused, Latin unaffected ---
FAULT=$(dirname "$BIN")/tests/fault.so
if [ -f "$FAULT" ]; then
	# under ASan the preloaded library comes before its runtime: allowed
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
	rc=0
	LD_PRELOAD="$FAULT" TB_FAULT_NODLOPEN=libharfbuzz "$BIN" report docs/examples/default-7b.yaml \
		--template tests/templates/scripts.md --format pdf -o "$T/nolib" >/dev/null 2>"$T/err.txt" || rc=$?
	if [ "$rc" -ne 0 ] && grep -q 'error: this text needs shaping or bidi ordering, and cannot load libharfbuzz.so.0' "$T/err.txt" &&
	   grep -q "expected Debian's libharfbuzz0b installed" "$T/err.txt" && [ ! -e "$T/nolib/default-7b.pdf" ]; then
		ok "without HarfBuzz a page of scripts is refused by name, no PDF left (exit $rc)"
	else
		fail "HarfBuzz missing (exit $rc): $(head -2 "$T/err.txt")"
	fi
	rc=0
	LD_PRELOAD="$FAULT" TB_FAULT_NODLOPEN=libharfbuzz-subset "$BIN" report docs/examples/default-7b.yaml \
		--format pdf -o "$T/nosub" --font-dir "$T/cff-cid/fonts" >/dev/null 2>"$T/err.txt" || rc=$?
	if [ "$rc" -eq 3 ] && grep -q "DejaVuSans.ttf: error: cannot embed this font: cannot load libharfbuzz-subset.so.0 .*expected Debian's libharfbuzz-subset0 installed" "$T/err.txt" &&
	   [ ! -e "$T/nosub/default-7b.pdf" ]; then
		ok "without hb-subset a CFF font is refused by name, no PDF left"
	else
		fail "hb-subset missing (exit $rc): $(head -2 "$T/err.txt")"
	fi
	# without ICU the page is still drawn whole: the Thai paragraph cut
	# between clusters instead of words, nothing lost
	rc=0
	LD_PRELOAD="$FAULT" TB_FAULT_NODLOPEN=libicuuc "$BIN" report docs/examples/default-7b.yaml \
		--template tests/templates/scripts.md --format pdf -o "$T/nolib3" >/dev/null 2>"$T/err.txt" || rc=$?
	if [ "$rc" -eq 0 ] && pdftotext "$T/nolib3/default-7b.pdf" - 2>/dev/null | tr -d '\n' |
	   grep -q 'ภาษาไทยเป็นภาษาที่มีระดับเสียงของคำแน่นอนหรือวรรณยุกต์'; then
		ok "without ICU a page of scripts is drawn whole (Thai cut between clusters)"
	else
		fail "without ICU (exit $rc): $(head -2 "$T/err.txt")"
	fi
	if LD_PRELOAD="$FAULT" TB_FAULT_NODLOPEN=lib "$BIN" report docs/examples/default-7b.yaml --format pdf \
		-o "$T/nolib2" >/dev/null 2>"$T/err.txt" && [ -s "$T/nolib2/default-7b.pdf" ]; then
		ok "a Latin report needs none of the text libraries"
	else
		fail "a Latin report without the text libraries: $(head -2 "$T/err.txt")"
	fi
fi

# ---- Tagged PDF: a structure tree in reading order (issue 23) -------------
mkdir -p "$T/tag"
if "$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/tag" >/dev/null 2>"$T/err.txt"; then
	pdf="$T/tag/default-7b.pdf"
	if pdfinfo "$pdf" 2>/dev/null | grep -q '^Tagged: *yes'; then ok "pdfinfo: Tagged: yes"; else fail "the PDF is not tagged"; fi
	pdfinfo -struct-text "$pdf" >"$T/tag/struct" 2>"$T/tag/struct.err" || true
	# the H1 elements' text, in the tree's order, against the outline's
	# sections (the outline is drawn from the headings as printed)
	heads=$(awk '/^  H1/ { getline; sub(/^ *"/, ""); sub(/"$/, ""); printf "%s|", $0 }' "$T/tag/struct")
	qpdf --json "$pdf" >"$T/tag/json" 2>/dev/null || true
	outline=$(python3 -c '
import json, sys
print("".join(o["title"] + "|" for o in json.load(open(sys.argv[1]))["outlines"] if o["title"] != "Sign-off"))
' "$T/tag/json" 2>/dev/null || true)
	if [ -n "$heads" ] && [ "$heads" = "$outline" ] && [ ! -s "$T/tag/struct.err" ]; then
		ok "the structure lists the sections' headings in order: ${heads%%|*} ... $(printf '%s' "$heads" | awk -F'|' '{ print $(NF-1) }')"
	else
		fail "structure headings '$heads' against the outline '$outline' $(head -2 "$T/tag/struct.err")"
	fi
	charts=$(grep -c '^  *Figure' "$T/tag/struct" || true)
	if grep -q '^ *TH' "$T/tag/struct" && grep -q '^ *TD' "$T/tag/struct" && grep -q '^ *Caption' "$T/tag/struct" &&
	   [ "$charts" -ge 5 ] && ! grep -q 'Page 1 of' "$T/tag/struct"; then
		ok "tables with captions and header cells, $charts figures; running footers are artifacts"
	else
		fail "structure: TH/TD/Caption, $charts figures, or footers in the text: $(grep -c 'Page 1 of' "$T/tag/struct")"
	fi
	if qpdf --json "$pdf" 2>/dev/null | grep -q '"/Alt": "u:'; then
		ok "figures carry the charts' alternate descriptions"
	else
		fail "no /Alt on the figures"
	fi
	# lists and quotes: L > LI > LBody, BlockQuote
	printf '# Lists\n\n- first item\n- second item\n\n1. one\n2. two\n\n> a quoted line\n' >"$T/tag/list.md"
	"$BIN" report docs/examples/default-7b.yaml --template "$T/tag/list.md" --format pdf -o "$T/tag/l" >/dev/null 2>&1 || true
	lists=$(pdfinfo -struct-text "$T/tag/l/default-7b.pdf" 2>/dev/null | awk '$1 == "L" || $1 == "LI" || $1 == "LBody" || $1 == "BlockQuote" { printf "%s ", $1 }')
	if [ "$lists" = "L LI LBody LI LBody L LI LBody LI LBody BlockQuote " ]; then
		ok "lists are L, LI and LBody, a quote BlockQuote"
	else
		fail "lists in the structure: '$lists'"
	fi
else
	fail "report for the structure tree: $(cat "$T/err.txt")"
fi

# ---- PDF/A-2b: XMP metadata naming it, an sRGB output intent -------------
mkdir -p "$T/pa"
if "$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/pa/a" >/dev/null 2>"$T/err.txt" &&
   "$BIN" report docs/examples/default-7b.yaml --format pdf --no-pdf-a -o "$T/pa/b" >/dev/null 2>>"$T/err.txt"; then
	meta=$(pdfinfo -meta "$T/pa/a/default-7b.pdf" 2>/dev/null || true)
	if printf '%s' "$meta" | grep -q '<pdfaid:part>2</pdfaid:part>' &&
	   printf '%s' "$meta" | grep -q '<pdfaid:conformance>B</pdfaid:conformance>' &&
	   printf '%s' "$meta" | grep -q '7B on 100B tokens in a month with 64 x H100</rdf:li>'; then
		ok "the XMP metadata names PDF/A-2b and carries the Info dictionary's title"
	else
		fail "XMP metadata: $(printf '%s' "$meta" | head -5)"
	fi
	qpdf --json "$T/pa/a/default-7b.pdf" >"$T/pa/json" 2>/dev/null || true
	icc=$(python3 -c '
import json, sys
for k, v in json.load(open(sys.argv[1]))["qpdf"][1].items():
    s = v.get("stream") if isinstance(v, dict) else None
    if s and s.get("dict", {}).get("/N") == 3:
        print(k.split(":")[1].split()[0])
' "$T/pa/json" 2>/dev/null || true)
	if grep -q '"/S": "/GTS_PDFA1"' "$T/pa/json" && [ -n "$icc" ] &&
	   qpdf --show-object="$icc" --filtered-stream-data "$T/pa/a/default-7b.pdf" >"$T/pa/srgb.icc" 2>/dev/null &&
	   python3 tests/icc_check.py "$T/pa/srgb.icc" >/dev/null 2>"$T/pa/icc.err"; then
		ok "an sRGB output intent whose profile Little CMS reads and maps sRGB to itself"
	else
		fail "output intent: icc object '$icc': $(cat "$T/pa/icc.err" 2>/dev/null | tail -2)"
	fi
	"$BIN" report docs/examples/default-7b.yaml --format pdf -o "$T/pa/c" >/dev/null 2>&1 || true
	check_pdf "$T/pa/a/default-7b.pdf" "the PDF/A report" "$T/pa/c/default-7b.pdf"
	outline=$(python3 -c '
import json, sys
print("|".join(o["title"] for o in json.load(open(sys.argv[1]))["outlines"]))
' "$T/pa/json" 2>/dev/null || true)
	if [ "${outline%%|*}" = "1 Verdict" ] && [ "${outline##*|}" = "Sign-off" ] &&
	   printf '%s' "$outline" | grep -q '|5 Memory per GPU|'; then
		ok "the outline has every section in order, the sign-off last"
	else
		fail "outline: $outline"
	fi
	if ! pdfinfo -meta "$T/pa/b/default-7b.pdf" 2>/dev/null | grep -q pdfaid; then
		ok "--no-pdf-a writes a plain PDF (no XMP claim)"
	else
		fail "--no-pdf-a still claims PDF/A"
	fi
else
	fail "report for PDF/A: $(cat "$T/err.txt")"
fi

[ "$fails" -eq 0 ]
