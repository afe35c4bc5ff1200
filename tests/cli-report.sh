#!/bin/sh
# Markdown and HTML reports of every example scenario, end to end:
#   - golden files, byte for byte: tests/golden/NAME.md, NAME.html and
#     NAME-<chart>.svg;
#   - determinism: two runs give identical files (json included);
#   - a hostile title comes out as literal text in Markdown and HTML;
#   - a user template with an unknown placeholder fails at FILE:LINE:COL,
#     exits 1 and writes nothing.
#   sh tests/cli-report.sh BIN                  check
#   UPDATE_GOLDEN=1 sh tests/cli-report.sh BIN  rewrite the golden files
set -eu
BIN=${1:?usage: sh tests/cli-report.sh BIN}
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-report.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
# reports are dated from the scenario, else from SOURCE_DATE_EPOCH: pin it
SOURCE_DATE_EPOCH=1735689600
export SOURCE_DATE_EPOCH
fails=0
fail() { echo "cli-report: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }

# ---- golden files and determinism ------------------------------------
for f in docs/examples/*.yaml docs/examples/fine-tuning/*.yaml docs/examples/stages/*.yaml; do
	[ -e "$f" ] || continue
	name=$(basename "$f" .yaml)
	rm -rf "$T/a" "$T/b"
	mkdir -p "$T/a" "$T/b"
	if ! "$BIN" report "$f" -o "$T/a" --format md,html,json >/dev/null 2>"$T/err.txt"; then
		fail "report $f: $(cat "$T/err.txt")"
		continue
	fi
	"$BIN" report "$f" -o "$T/b" --format md,html,json >/dev/null 2>&1 || true
	same=1
	for out in "$T/a"/*; do
		b="$T/b/$(basename "$out")"
		cmp -s "$out" "$b" || { same=0; fail "two runs differ: $(basename "$out")"; }
	done
	[ "$same" = 1 ] && ok "two runs byte-identical: $name"
	if grep -l -i -E '(^|[^a-z])(nan|-?inf)([^a-z]|$)' "$T/a/$name.md" "$T/a/$name.html" >/dev/null 2>&1; then
		fail "$name: NaN or inf printed"
	fi
	for out in "$T/a/$name.md" "$T/a/$name.html" "$T/a/$name"-*.svg; do
		[ -e "$out" ] || continue
		base=$(basename "$out")
		golden="tests/golden/$base"
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			mkdir -p tests/golden
			cp "$out" "$golden"
			ok "wrote $golden"
		elif [ ! -f "$golden" ]; then
			fail "$golden missing (UPDATE_GOLDEN=1 sh tests/cli-report.sh BIN writes it)"
		elif cmp -s "$out" "$golden"; then
			ok "$base matches $golden"
		else
			fail "$base differs from $golden:"
			diff -u "$golden" "$out" | head -20 >&2 || true
		fi
	done
	# a golden chart the report no longer draws is stale
	for golden in tests/golden/"$name"-*.svg; do
		[ -e "$golden" ] || continue
		[ -e "$T/a/$(basename "$golden")" ] || fail "$golden is no longer written"
	done
done

# ---- comparisons and sweeps: golden files ---------------------------------
# golden_set DIR GOLDEN PREFIX NAME CHARTS: the .md, .html and CHARTS*.svg
# the run wrote in DIR against tests/golden/GOLDEN/PREFIX<the file's name
# past its set name NAME>.  A report's own charts are the examples' goldens'
# business: a sweep's goldens keep only the sweep's.
golden_set() {
	g_dir=$1 g_sub=$2 g_prefix=$3 g_name=$4 g_charts=$5
	for out in "$g_dir/$g_name".md "$g_dir/$g_name".html "$g_dir/$g_name"-$g_charts*.svg; do
		[ -e "$out" ] || continue
		base=$(basename "$out")
		golden="tests/golden/$g_sub/$g_prefix${base#"$g_name"}"
		if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
			mkdir -p "tests/golden/$g_sub"
			cp "$out" "$golden"
			ok "wrote $golden"
		elif [ ! -f "$golden" ]; then
			fail "$golden missing (UPDATE_GOLDEN=1 sh tests/cli-report.sh BIN writes it)"
		elif cmp -s "$out" "$golden"; then
			ok "$base matches $golden"
		else
			fail "$base differs from $golden:"
			diff -u "$golden" "$out" | head -20 >&2 || true
		fi
	done
	for golden in tests/golden/"$g_sub"/"$g_prefix"-*.svg; do
		[ -e "$golden" ] || continue
		g_base=$(basename "$golden")
		[ -e "$g_dir/$g_name${g_base#"$g_prefix"}" ] || fail "$golden is no longer written"
	done
}

# run_set NAME GOLDEN PREFIX ARGS...: the command twice (byte-identical),
# then its files against the golden ones.
run_set() {
	r_name=$1 r_sub=$2 r_prefix=$3
	shift 3
	rm -rf "$T/s1" "$T/s2"
	if ! "$BIN" "$@" -o "$T/s1" --format md,html,json >/dev/null 2>"$T/err.txt"; then
		fail "$*: $(cat "$T/err.txt")"
		return
	fi
	"$BIN" "$@" -o "$T/s2" --format md,html,json >/dev/null 2>&1 || true
	if diff -r "$T/s1" "$T/s2" >/dev/null; then ok "two runs byte-identical: $r_prefix"; else fail "two runs differ: $r_prefix"; fi
	if grep -l -i -E '(^|[^a-z])(nan|-?inf)([^a-z]|$)' "$T/s1/$r_name.md" "$T/s1/$r_name.html" >/dev/null 2>&1; then
		fail "$r_prefix: NaN or inf printed"
	fi
	if [ "$r_sub" = sweep ]; then r_charts=sweep-; else r_charts=; fi
	golden_set "$T/s1" "$r_sub" "$r_prefix" "$r_name" "$r_charts"
}

C=docs/examples/compare
S=docs/examples/sweep
run_set h100-512-6w-vs-a100-1024-8w compare two-proposals compare "$C/h100-512-6w.yaml" "$C/a100-1024-8w.yaml"
run_set 7b-2t-vs-13b-1t-vs-13b-1t-128 compare three-proposals compare "$C/7b-2t.yaml" "$C/13b-1t.yaml" "$C/13b-1t-128.yaml"
run_set 70b-2t-h100 sweep hardware-count report "$S/70b-2t-h100.yaml" --sweep hardware.count=64..65536:x2
run_set 70b-128-h100 sweep micro-batch report "$S/70b-128-h100.yaml" --sweep training.micro_batch=1..8
run_set 70b-128-h100 sweep seq-len report "$S/70b-128-h100.yaml" --sweep training.seq_len=1024..32768:x2
run_set 70b-128-h100 sweep grid report "$S/70b-128-h100.yaml" --sweep training.micro_batch=1..6 --sweep training.seq_len=2048,4096,8192,16384
# the builder test's worked example: the full run calibrated on its pilot
# (issue 21), its JSON kept too
run_set llama3-8b-1024 pilot calibrated report docs/examples/pilot/llama3-8b-1024.yaml \
	--calibrate docs/examples/pilot/llama3-8b-pilot.yaml
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
	cp "$T/s1/llama3-8b-1024.json" tests/golden/pilot/calibrated.json
	ok "wrote tests/golden/pilot/calibrated.json"
elif cmp -s "$T/s1/llama3-8b-1024.json" tests/golden/pilot/calibrated.json; then
	ok "llama3-8b-1024.json matches tests/golden/pilot/calibrated.json"
else
	fail "llama3-8b-1024.json differs from tests/golden/pilot/calibrated.json"
	diff -u tests/golden/pilot/calibrated.json "$T/s1/llama3-8b-1024.json" | head -20 >&2 || true
fi

# ---- the hostile title -------------------------------------------------
hostile='<script>alert(1)</script> **x** [l](javascript:alert(2))'
mkdir -p "$T/h"
sed "s|^title:.*|title: '$hostile'|" docs/examples/default-7b.yaml >"$T/h/hostile.yaml"
if "$BIN" report "$T/h/hostile.yaml" -o "$T/h" --format md,html >/dev/null 2>"$T/err.txt"; then
	html="$T/h/hostile.html"
	md="$T/h/hostile.md"
	if grep -q '<script' "$html"; then fail "hostile title: <script in the HTML"; else ok "hostile title: no <script in the HTML"; fi
	if grep -q 'href="javascript' "$html"; then fail "hostile title: a javascript: link in the HTML"; else ok "hostile title: no link in the HTML"; fi
	if grep -qF '<h1>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</h1>' "$html"; then
		ok "hostile title: literal text in the HTML heading"
	else
		fail "hostile title: the HTML heading is not the literal title"
	fi
	# every Markdown metacharacter of the title backslash-escaped
	want_md='# \<script\>alert(1)\</script\> \*\*x\*\* \[l\](javascript:alert(2))'
	if [ "$(head -1 "$md")" = "$want_md" ]; then ok "hostile title: escaped in the Markdown heading"; else fail "hostile title: Markdown heading is '$(head -1 "$md")'"; fi
	# what a Markdown reader makes of it, with cmark's own command when present
	if command -v cmark >/dev/null; then
		if cmark "$md" | grep -qF '<h1>&lt;script&gt;alert(1)&lt;/script&gt; **x** [l](javascript:alert(2))</h1>'; then
			ok "hostile title: the Markdown reads back as the literal title"
		else
			fail "hostile title: the Markdown does not read back as the literal title"
		fi
	fi
else
	fail "report of the hostile title failed: $(cat "$T/err.txt")"
fi

# ---- a user template with an error ------------------------------------
mkdir -p "$T/t"
printf '# {{scenario.title}}\n\nMemory: {{memory.per_gpu.totl | bytes}}\n' >"$T/t/bad.md"
set +e
"$BIN" report docs/examples/default-7b.yaml --template "$T/t/bad.md" -o "$T/t/out" --format md,html >/dev/null 2>"$T/err.txt"
rc=$?
set -e
first=$(head -1 "$T/err.txt")
want="$T/t/bad.md:3:9: error: unknown placeholder 'memory.per_gpu.totl'; did you mean 'memory.per_gpu.total'?"
if [ "$rc" = 1 ] && [ "$first" = "$want" ]; then
	ok "template error at FILE:LINE:COL, exit 1"
else
	fail "template error: rc=$rc, first line '$first', expected '$want'"
fi
if [ -n "$(ls -A "$T/t/out" 2>/dev/null)" ]; then fail "template error left files behind"; else ok "template error leaves nothing behind"; fi

# ---- a user template that works ----------------------------------------
printf '# {{scenario.title}}\n\n{{#if deadline}}\n\nDeadline {{time.deadline_s | days}}.\n\n{{/if}}\n\n{{chart zero}}\n' >"$T/t/good.md"
mkdir -p "$T/t/good"
if "$BIN" report docs/examples/default-7b.yaml --template "$T/t/good.md" -o "$T/t/good" --format md >/dev/null 2>"$T/err.txt" &&
   grep -q '^Deadline 30' "$T/t/good/default-7b.md" && [ -s "$T/t/good/default-7b-zero.svg" ]; then
	ok "user template with a condition and a chart"
else
	fail "user template: $(cat "$T/err.txt")"
fi

# ---- fp8 weights under Megatron-LM: a row of their own, one answer ------
# Transformer Engine's fp8 copies beside the bf16 weights, then the fp8
# parameters in their place: the table's rows, the JSON's whole-model
# figures and the model states add up alike in both
for pg in false true; do
	rm -rf "$T/f8"
	mkdir -p "$T/f8"
	if ! "$BIN" report docs/examples/deepseek-v3.yaml -o "$T/f8" --format md,json \
		--set parallelism.framework=megatron --set training.fp8_param_gather=$pg >/dev/null 2>"$T/err.txt"; then
		fail "fp8 weights ($pg): $(cat "$T/err.txt")"
		continue
	fi
	row="fp8 copies of the linear layers' weights (Transformer Engine)"
	[ "$pg" = true ] && row="Weights of the linear layers, in fp8 (fp8\\_param\\_gather)"
	if grep -qF "| $row |" "$T/f8/deepseek-v3.md" &&
	   python3 - "$T/f8/deepseek-v3.json" "$pg" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["memory"]
pg = sys.argv[2] == "true"
bp = m["bytes_per_param"]
# the model states: the trained parameters' bytes, the copies in, the
# 16-bit weights they replace out
n = m["model_states_bytes"] - m["fp8_weights_bytes"] + m["fp8_replaced_bytes"]
assert m["fp8_weights_bytes"] > 0 and (m["fp8_replaced_bytes"] > 0) == pg, m
assert abs(n - d["parameters"]["trainable"] * bp["total"]) <= 1e-9 * n, (n, bp)
# what they replace is those same weights at 2 B each; per tensor an fp8
# parameter is a byte on the H800 too (its transpose is not kept)
if pg:
    lin = m["fp8_replaced_bytes"] / bp["weights"]
    assert 0 < lin < d["parameters"]["trainable"], lin
    assert abs(m["fp8_weights_bytes"] / lin - 1) < 1e-12, m
g = m["per_gpu"]
assert 0 < g["fp8_weights"] < g["weights"], g
PY
	then ok "fp8 weights ($pg): their own row, the JSON's figures add up"
	else fail "fp8 weights ($pg): row or JSON figures"
	fi
done

# ---- the head in fp8 (Megatron-LM's --fp8-output-proj, MXFP8) ----------
# one model with its head in fp8 and without: the step shorter, the head's
# weight among the fp8 copies at MXFP8's bytes (both orientations, a scale
# per 32: 2.0625 B an element), the input as written
for fh in false true; do
	if ! "$BIN" estimate docs/examples/default-7b.yaml --format json --set parallelism.framework=megatron \
		--set hardware.gpu=b200 --set training.precision=fp8-mixed --set training.fp8_recipe=mxfp8 \
		--set training.fp8_head=$fh >"$T/fh-$fh.json" 2>"$T/err.txt"; then
		fail "fp8 head ($fh): $(cat "$T/err.txt")"
	fi
done
if python3 - "$T/fh-false.json" "$T/fh-true.json" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["inputs"]["training"]["fp8_head"] is False and b["inputs"]["training"]["fp8_head"] is True
assert b["perf"]["step_s"] < a["perf"]["step_s"], (a["perf"]["step_s"], b["perf"]["step_s"])
m = b["inputs"]["model"]
w = b["memory"]["fp8_weights_bytes"] - a["memory"]["fp8_weights_bytes"]
assert abs(w - m["vocab"] * m["hidden"] * 2.0625) < 1e-9 * w, (w, m["vocab"], m["hidden"])
PY
then ok "fp8 head: the step shorter, its weight among the fp8 copies"
else fail "fp8 head: step or memory"
fi
# the report's settings say where the head runs
if "$BIN" report docs/examples/default-7b.yaml -o "$T/fh" --format md --set parallelism.framework=megatron \
	--set hardware.gpu=b200 --set training.precision=fp8-mixed --set training.fp8_recipe=mxfp8 \
	--set training.fp8_head=true >/dev/null 2>"$T/err.txt" &&
   grep -qF "| Vocabulary head | its GEMMs in the linear layers' fp8 recipe, with its casts (training.fp8\_head" \
	"$T/fh/default-7b.md"
then ok "fp8 head: the report's settings say so"
else fail "fp8 head: the report's settings ($(cat "$T/err.txt"))"
fi

# FSDP's working set is one row in both memory tables, and the shards
# beside it add up to the JSON's per-GPU weights and gradients
if "$BIN" report docs/examples/llama-3.1-8b-torchtitan.yaml -o "$T/ws" --format md,json \
	>/dev/null 2>"$T/err.txt" &&
   python3 - "$T/ws/llama-3.1-8b-torchtitan.md" "$T/ws/llama-3.1-8b-torchtitan.json" <<'PY'
import json, re, sys
md = open(sys.argv[1]).read()
g = json.load(open(sys.argv[2]))["memory"]["per_gpu"]
cells = lambda l: [c.strip() for c in l.strip().strip("|").split("|")]
ws = [cells(l) for l in md.splitlines() if l.startswith("| FSDP's working set")]
assert g["gathered_weights"] > 0 and g["gathered_gradients"] > 0, g
gb = "%.2f GB" % ((g["gathered_weights"] + g["gathered_gradients"]) / 1e9)
# the line items' row (its last cell) and the per-GPU table's (its second)
assert len(ws) == 2 and ws[0][-1] == gb and ws[1][1] == gb, (ws, gb)
w = [cells(l) for l in md.splitlines() if l.startswith("| Weights | ")][0]
assert (w[1] == "0 B") == (g["weights"] == g["gathered_weights"]), w
PY
then ok "FSDP's working set: one row in both memory tables, the shards beside it"
else fail "FSDP's working set rows: $(cat "$T/err.txt")"
fi

if [ "$fails" -gt 0 ]; then
	echo "cli-report: $fails failure(s)" >&2
	exit 1
fi
echo "cli-report: all checks passed"
