#!/bin/sh
# The malformed-template catalogue: every tests/templates/bad-*.md starts
# with `<!-- expect: FIRST DIAGNOSTIC LINE -->`; rendering the default
# example through it must exit 1, print exactly that line first on stderr,
# and write nothing.  Run by tests/cli.sh as `sh tests/cli-templates.sh BIN`.
set -u
BIN=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
n=0
for t in tests/templates/bad-*.md; do
	[ -e "$t" ] || continue
	n=$((n + 1))
	want=$(sed -n '1s/^<!-- expect: \(.*\) -->$/\1/p' "$t")
	if [ -z "$want" ]; then
		echo "not ok - $t: first line must be '<!-- expect: <first diagnostic line> -->'"
		fail=$((fail + 1))
		continue
	fi
	mkdir "$T/o"
	rc=0
	"$BIN" report docs/examples/default-7b.yaml --template "$t" -o "$T/o" >"$T/out" 2>"$T/err" || rc=$?
	got=$(head -n 1 "$T/err")
	left=$(ls -A "$T/o")
	if [ "$rc" -eq 1 ] && [ "$got" = "$want" ] && [ -z "$left" ]; then
		pass=$((pass + 1))
	else
		echo "not ok - $t"
		[ "$rc" -eq 1 ] || echo "    exit $rc, expected 1"
		[ "$got" = "$want" ] || printf '    first line: %s\n    expected:   %s\n' "$got" "$want"
		[ -z "$left" ] || echo "    left behind: $left"
		fail=$((fail + 1))
	fi
	rm -rf "$T/o"
done
if [ "$n" -eq 0 ]; then
	echo "not ok - no tests/templates/bad-*.md"
	exit 1
fi
echo "cli-templates: $pass of $n malformed templates give their exact first diagnostic, exit 1, no output"

# ---- generated hostile templates, too big to keep as files --------------
# hostile NAME FORMAT WANT: renders $T/NAME.md in FORMAT; exit 1, WANT as
# the first line (without the file name), nothing written.
hostile() {
	mkdir "$T/o"
	rc=0
	"$BIN" report docs/examples/default-7b.yaml --template "$T/$1.md" --format "$2" -o "$T/o" \
		>"$T/out" 2>"$T/err" || rc=$?
	got=$(head -n 1 "$T/err" | sed "s|^$T/||")
	if [ "$rc" -eq 1 ] && [ "$got" = "$3" ] && [ -z "$(ls -A "$T/o")" ]; then
		echo "ok   - $1 as $2: refused"
	else
		echo "not ok - $1 as $2: exit $rc, first line: $got"
		echo "    expected: $3"
		fail=$((fail + 1))
	fi
	rm -rf "$T/o"
}
# 30,000 nested block quotes (a stack overflow in the PDF once)
awk 'BEGIN { s = ""; for (i = 0; i < 30000; i++) s = s "> "; print s "x" }' >"$T/deep.md"
for f in md html pdf; do
	hostile deep "$f" "deep.md:1:65: error: nesting deeper than 32 levels; expected at most 32 nested block quotes, lists, emphases and links"
done

# A GFM pipe table written in a template is a table in every format.
printf '# T\n\n| Quantity | Value |\n| :--- | ---: |\n| Parameters | {{parameters.total | sci}} |\n| *Training* FLOPs | `{{flops.total_6nd | sci}}` |\n' >"$T/pipe.md"
rm -rf "$T/o"
rc=0
"$BIN" report docs/examples/default-7b.yaml --template "$T/pipe.md" --format md,html,pdf -o "$T/o" \
	>"$T/out" 2>"$T/err" || rc=$?
md_ok=no html_ok=no pdf_ok=skipped
grep -qx '| --- | ---: |' "$T/o/default-7b.md" 2>/dev/null &&
	grep -qx '| Training FLOPs | 4\.04 × 10²¹ |' "$T/o/default-7b.md" && md_ok=yes
grep -q '<td>Training FLOPs</td><td class="num">4.04 × 10²¹</td>' "$T/o/default-7b.html" 2>/dev/null && html_ok=yes
if command -v pdftotext >/dev/null 2>&1; then
	pdf_ok=no
	pdftotext -layout "$T/o/default-7b.pdf" - 2>/dev/null | grep -q '^ *Training FLOPs  *4\.04 × 10²¹ *$' && pdf_ok=yes
fi
if [ "$rc" -eq 0 ] && [ ! -s "$T/err" ] && [ "$md_ok" = yes ] && [ "$html_ok" = yes ] && [ "$pdf_ok" != no ]; then
	echo "ok   - a pipe table in a template is a table in md, html and pdf ($pdf_ok)"
else
	echo "not ok - a pipe table in a template: exit $rc, md $md_ok, html $html_ok, pdf $pdf_ok; $(head -n 1 "$T/err")"
	fail=$((fail + 1))
fi
rm -rf "$T/o"

# A size limit like a scenario's: /dev/zero once read until memory ran out.
rm -rf "$T/o"; mkdir "$T/o"
rc=0
"$BIN" report docs/examples/default-7b.yaml --template /dev/zero -o "$T/o" >"$T/out" 2>"$T/err" || rc=$?
if [ "$rc" -eq 1 ] && [ "$(head -n 1 "$T/err")" = "/dev/zero: error: the template is larger than 1 MiB; expected a CommonMark file of a few kilobytes" ] &&
	[ -z "$(ls -A "$T/o")" ]; then
	echo "ok   - --template /dev/zero: refused"
else
	echo "not ok - --template /dev/zero: exit $rc, $(head -n 1 "$T/err")"
	fail=$((fail + 1))
fi
rm -rf "$T/o"

# A value in a link destination never makes a dangerous link, however it is
# encoded: the issue's title, written by the scenario, comes out relative.
printf '# Report\n\n[t]({{scenario.title}}) [u](https://wiki.example/{{scenario.title}})\n' >"$T/link.md"
for title in '&#106;avascript:alert(1)' 'javascript:alert(1)' 'JaVa&Tab;ScRiPt&colon;x' '%6Aavascript:x'; do
	rm -rf "$T/o"
	rc=0
	"$BIN" report docs/examples/default-7b.yaml --set "title=\"$title\"" --template "$T/link.md" \
		--format md,html -o "$T/o" >"$T/out" 2>"$T/err" || rc=$?
	md=$(sed -n 3p "$T/o"/default-7b.md 2>/dev/null)
	case $md in
	"[t](./"*") [u](https://wiki.example/"*")")
		if grep -q 'href="\(\./\|https://wiki\.example/\)' "$T/o"/default-7b.html && [ "$rc" -eq 0 ]; then
			echo "ok   - title '$title' in a link: $md"
		else
			echo "not ok - title '$title' in a link: exit $rc, HTML links $(grep -o 'href="[^"]*"' "$T/o"/default-7b.html)"
			fail=$((fail + 1))
		fi ;;
	*)
		echo "not ok - title '$title' in a link: exit $rc, $md $(head -n 1 "$T/err")"
		fail=$((fail + 1)) ;;
	esac
done
rm -rf "$T/o"
[ "$fail" -eq 0 ]
