#!/bin/sh
# `trainbudget compare` and `--sweep` end to end (the golden files are
# cli-report.sh's and cli-pdf.sh's):
#   - the catalogue of malformed comparisons and sweeps
#     (tests/compare/catalogue.txt): exit status, first line, nothing written;
#   - every error of every file, each at FILE:LINE:COL;
#   - the cliffs the golden reports name are the memory model's own fits and
#     the budgets' own times: each is checked against `estimate --set`;
#   - the output set's name, manifest and JSON keys;
#   - estimate --sweep in text and JSON.
#   sh tests/cli-compare.sh BIN
set -u
BIN=${1:?usage: sh tests/cli-compare.sh BIN}
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-compare.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
SOURCE_DATE_EPOCH=1735689600
export SOURCE_DATE_EPOCH
fails=0
fail() { echo "cli-compare: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }
C=docs/examples/compare
S=docs/examples/sweep

# ---- help ----------------------------------------------------------------
"$BIN" help compare >"$T/out" 2>&1 && grep -q '^Usage: trainbudget compare FILE FILE' "$T/out" \
	&& ok "help compare" || fail "help compare: $(head -1 "$T/out")"
"$BIN" compare --help >"$T/out" 2>&1 && grep -q -- '--sweep KEY=VALUES' "$T/out" \
	&& ok "compare --help names --sweep" || fail "compare --help"
"$BIN" help >"$T/out" 2>&1 && grep -q '^  compare FILE FILE' "$T/out" \
	&& ok "help lists compare" || fail "help lists compare"

# ---- the catalogue --------------------------------------------------------
n=0
while IFS='|' read -r want_rc want args; do
	case $want_rc in '#'*|'') continue ;; esac
	n=$((n + 1))
	rm -rf "$T/o"
	mkdir "$T/o"
	# shellcheck disable=SC2086
	"$BIN" $args -o "$T/o" >"$T/out" 2>"$T/err"
	rc=$?
	got=$(head -n 1 "$T/err")
	if [ "$rc" = "$want_rc" ] && [ "$got" = "$want" ]; then
		ok "catalogue: $args"
	else
		fail "catalogue: $args: exit $rc (expected $want_rc), first line:
  got:      $got
  expected: $want"
	fi
	[ -z "$(ls -A "$T/o")" ] || fail "catalogue: $args wrote $(ls -A "$T/o")"
done <tests/compare/catalogue.txt
[ "$n" -ge 15 ] && ok "catalogue: $n cases" || fail "catalogue: only $n cases"

# every error of every file, in the files' order
"$BIN" compare tests/compare/bad-gpu.yaml tests/compare/usd.yaml tests/compare/bad-two.yaml \
	-o "$T/o" >/dev/null 2>"$T/err"
rc=$?
grep -c ': error: ' "$T/err" >"$T/n"
if [ "$rc" = 1 ] && [ "$(cat "$T/n")" = 3 ] &&
   grep -q '^tests/compare/bad-two.yaml:6:11: error: ' "$T/err" &&
   grep -q '^tests/compare/bad-two.yaml:9:10: error: ' "$T/err" &&
   tail -n 1 "$T/err" | grep -q '^3 errors$'; then
	ok "every error of every file is printed (3 errors, 2 files)"
else
	fail "every error of every file: exit $rc, $(cat "$T/err")"
fi

# ---- the cliffs in the goldens are the model's own -------------------------
# json_get FILE EXPR: a value from an estimate's JSON (python3 is a build
# dependency: fontTools)
json_get() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# Whether the layout as written runs: estimate prices the answer's layout
# (answer.h), and says of the written one beside it (`written`, null when
# the answer is what was written).
written_runs='str(d["answer"]["runs"] if d["written"] is None else d["written"]["runs"]).lower()'
fits_at() { # FILE KEY VALUE -> true/false
	"$BIN" estimate "$1" --set "$2=$3" --format json >"$T/e.json" 2>/dev/null || { echo error; return; }
	json_get "$T/e.json" "$written_runs"
}
mb=$(sed -n 's/^  - does not fit from micro\\_batch \([0-9,]*\)\.$/\1/p' tests/golden/sweep/micro-batch.md | tr -d ,)
if [ -n "$mb" ] &&
   [ "$(fits_at "$S/70b-128-h100.yaml" training.micro_batch "$mb")" = false ] &&
   [ "$(fits_at "$S/70b-128-h100.yaml" training.micro_batch $((mb - 1)))" = true ]; then
	ok "golden cliff 'does not fit from micro_batch $mb': estimate agrees at $mb and $((mb - 1))"
else
	fail "micro_batch cliff '$mb'"
fi
sl=$(sed -n 's/^  - does not fit from seq\\_len \([0-9,]*\)\.$/\1/p' tests/golden/sweep/seq-len.md | tr -d ,)
if [ -n "$sl" ] && [ "$(fits_at "$S/70b-128-h100.yaml" training.seq_len "$sl")" = false ] &&
   [ "$(fits_at "$S/70b-128-h100.yaml" training.seq_len $((sl / 2)))" = true ]; then
	ok "golden cliff 'does not fit from seq_len $sl': estimate agrees at $sl and $((sl / 2))"
else
	fail "seq_len cliff '$sl'"
fi
grid_ok=1
sed -n 's/^  - at seq\\_len \([0-9,]*\), does not fit from micro\\_batch \([0-9]*\)\.$/\1 \2/p' \
	tests/golden/sweep/grid.md | tr -d , >"$T/grid"
[ -s "$T/grid" ] || grid_ok=0
while read -r s m; do
	"$BIN" estimate "$S/70b-128-h100.yaml" --set "training.seq_len=$s" --set "training.micro_batch=$m" \
		--format json >"$T/g.json" 2>/dev/null
	[ "$(json_get "$T/g.json" "$written_runs")" = false ] || grid_ok=0
	"$BIN" estimate "$S/70b-128-h100.yaml" --set "training.seq_len=$s" --set "training.micro_batch=$((m - 1))" \
		--format json >"$T/g.json" 2>/dev/null
	[ "$(json_get "$T/g.json" "$written_runs")" = true ] || grid_ok=0
done <"$T/grid"
[ "$grid_ok" = 1 ] && ok "golden grid cliffs ($(wc -l <"$T/grid")): estimate agrees on each side" \
	|| fail "grid cliffs: $(cat "$T/grid")"
# "past N GPUs each doubling buys less than 30%": the times with losses
gp=$(sed -n 's/^  - past \([0-9,]*\) GPUs each doubling buys less than 30%.*/\1/p' tests/golden/sweep/hardware-count.md | tr -d ,)
days_at() {
	"$BIN" estimate "$S/70b-2t-h100.yaml" --set "hardware.count=$1" --format json >"$T/d.json" 2>/dev/null
	json_get "$T/d.json" "d['goodput']['seconds'][1]"
}
if [ -n "$gp" ]; then
	t_half=$(days_at $((gp / 2))) t=$(days_at "$gp") t2=$(days_at $((gp * 2)))
	if awk -v a="$t_half" -v b="$t" -v c="$t2" 'BEGIN { exit !(a / b - 1 >= 0.30 && b / c - 1 < 0.30) }'; then
		ok "golden cliff 'past $gp GPUs': doubling to $gp bought >= 30%, past it < 30%"
	else
		fail "scaling cliff at $gp: $t_half $t $t2"
	fi
else
	fail "tests/golden/sweep/hardware-count.md names no scaling cliff"
fi

# ---- the output set and JSON ----------------------------------------------
rm -rf "$T/c"
"$BIN" compare "$C/h100-512-6w.yaml" "$C/a100-1024-8w.yaml" -o "$T/c" >"$T/out" 2>"$T/err" \
	&& ok "compare writes the set" || fail "compare: $(cat "$T/err")"
name=h100-512-6w-vs-a100-1024-8w
[ "$(tail -n 1 "$T/out")" = "$T/c/$name.sha256" ] && ok "the set's name joins the stems: $name" \
	|| fail "set name: $(cat "$T/out")"
(cd "$T/c" && sha256sum -c --quiet "$name.sha256") >/dev/null 2>&1 \
	&& ok "$name.sha256 checks" || fail "$name.sha256"
if json_get "$T/c/$name.json" "d['comparison']['count'], d['comparison']['proposals'], [f['key'] for f in d['comparison']['figures']][:1], d['proposals'][1]['label'], d['proposals'][0]['memory']['per_gpu']['fits']" \
	>"$T/j" 2>&1 && [ "$(cat "$T/j")" = "2 ['h100-512-6w', 'a100-1024-8w'] ['parameters'] a100-1024-8w True" ]; then
	ok "compare JSON: comparison.count, proposals, figures, each proposal's estimate"
else
	fail "compare JSON: $(cat "$T/j")"
fi
"$BIN" compare "$C/7b-2t.yaml" "$C/13b-1t.yaml" "$C/13b-1t-128.yaml" "$C/h100-512-6w.yaml" \
	"$C/a100-1024-8w.yaml" "$S/70b-128-h100.yaml" "$S/70b-2t-h100.yaml" tests/compare/usd.yaml \
	--format json -o "$T/c8" >"$T/out" 2>"$T/err" \
	&& [ "$(tail -n 1 "$T/out")" = "$T/c8/comparison.sha256" ] \
	&& ok "eight proposals; a long set name falls back to 'comparison'" || fail "eight proposals: $(cat "$T/out" "$T/err")"

# ---- estimate --sweep --------------------------------------------------------
"$BIN" estimate "$S/70b-128-h100.yaml" --sweep training.micro_batch=1..8 >"$T/out" 2>"$T/err"
grep -q "^  - does not fit from micro_batch $mb\.$" "$T/out" && grep -q '^Sweep over training.micro_batch: 8 points$' "$T/out" \
	&& ok "estimate --sweep names the cliff in text" || fail "estimate --sweep: $(tail -5 "$T/out")"
# a value that does not fit as written is priced on the layout that runs
# instead, and its row says so: fits NO*, with the note under the table
# (the cliff's value and every one after it; none before)
if grep -q "^ *$mb  NO\* " "$T/out" && ! grep -q "^ *$((mb - 1))  NO" "$T/out" \
	&& grep -q '^  \* as written it does not fit, in the memory shown; its MFU, wall clock and cost are those of the layout that runs instead' "$T/out"; then
	ok "estimate --sweep marks the values priced on a replacement layout"
else
	fail "sweep replaced rows: $(sed -n '/^Sweep/,$p' "$T/out")"
fi
"$BIN" estimate "$S/70b-128-h100.yaml" --sweep training.micro_batch=1,2,4 --format json >"$T/s.json" 2>"$T/err"
if json_get "$T/s.json" "d['sweep']['key'], d['sweep']['values'], len(d['sweep']['points']), d['sweep']['grid'], d['sweep']['points'][2]['fits'], 'memory' in d" \
	>"$T/j" 2>&1 && [ "$(cat "$T/j")" = "training.micro_batch [1, 2, 4] 3 None True True" ]; then
	ok "estimate --sweep JSON: sweep.key, sweep.values, sweep.points, the budget beside"
else
	fail "sweep JSON: $(cat "$T/j")"
fi
# (the example writes every key that splits the batch, so the answer
# cannot choose a layout it splits over)
"$BIN" estimate "$S/70b-128-h100.yaml" --sweep hardware.count=512..4096:x2 >"$T/out" 2>&1
grep -q '^           2,048  not valid: training.global_batch (1680)' "$T/out" \
	&& grep -q '^  - cannot be laid out from 2,048 GPUs on (the scenario refuses it)\.$' "$T/out" \
	&& ok "a refused combination is a point marked not valid, and named" || fail "not valid: $(cat "$T/out" | tail -8)"
# a value from the command line is shown, never obeyed by the terminal
"$BIN" estimate "$S/70b-128-h100.yaml" --sweep "hardware.gpu=h100-sxm,$(printf 'b\033]0;x\007')" >"$T/out" 2>"$T/err"
if grep -q "$(printf '\033')" "$T/out" "$T/err"; then fail "an escape in a --sweep value reached the terminal"; else ok "an escape in a --sweep value is escaped"; fi

# the one answer in the JSON contract (issue 19): compare.fastest and
# compare.cheapest (a proposal that cannot run is never either),
# compare.proposals[].answer, sweep.points[].answer, plan.scenario.runs
"$BIN" compare docs/examples/does-not-fit.yaml docs/examples/default-7b.yaml --format json -o "$T/ans" >/dev/null 2>"$T/err"
if json_get "$T/ans/does-not-fit-vs-default-7b.json" "d['compare']['fastest'], d['compare']['cheapest'], [p['answer']['runs'] for p in d['compare']['proposals']], d['compare']['proposals'][0]['answer']['days']" \
	>"$T/j" 2>&1 && [ "$(cat "$T/j")" = "None None [False, True] None" ]; then
	ok "compare JSON: no proposal is fastest or cheapest beside one that cannot run; each proposal's answer"
else
	fail "compare answer JSON: $(cat "$T/j" "$T/err")"
fi
"$BIN" estimate "$S/70b-128-h100.yaml" --sweep training.micro_batch=1,8 --format json >"$T/sa.json" 2>"$T/err"
if json_get "$T/sa.json" "[(p['fits'], p['answer']['layout_source'], p['answer']['runs'], p['answer']['days'] == p['seconds'] / 86400) for p in d['sweep']['points']]" \
	>"$T/j" 2>&1 && [ "$(cat "$T/j")" = "[(True, 'completed', True, True), (False, 'replaced', True, True)]" ]; then
	ok "sweep JSON: each point's answer, the priced layout and its figures"
else
	fail "sweep answer JSON: $(cat "$T/j" "$T/err")"
fi
# a point is the estimate of its value: the built-in question at 64 GPUs
# swept gives estimate's answer (the fit, the memory, the expected days
# and cost: the simulated mean), not the unwritten defaults' ZeRO 0
"$BIN" estimate --format json >"$T/e64.json" 2>"$T/err"
"$BIN" estimate --sweep hardware.count=32,64,128 --format json >"$T/s64.json" 2>>"$T/err"
if python3 - "$T/e64.json" "$T/s64.json" >"$T/j" 2>&1 <<'PY'
import json, sys
e = json.load(open(sys.argv[1])); s = json.load(open(sys.argv[2]))
p = s['sweep']['points'][1]
assert p['value'] == 64 or p['value'] == '64', p['value']
assert p['fits'] is True and p['answer']['runs'] is True, p
assert p['memory_per_gpu_bytes'] == e['memory']['per_gpu']['total'], (p['memory_per_gpu_bytes'], e['memory']['per_gpu']['total'])
for k in ('days', 'cost'):
    assert p['answer'][k] == e['answer'][k], (k, p['answer'][k], e['answer'][k])
assert p['meets_deadline'] is True and p['within_budget'] is True
PY
then ok "a sweep point is estimate's answer at that value (fit, memory, expected days and cost)"
else fail "sweep point vs estimate: $(cat "$T/j" "$T/err")"
fi
printf 'title: 405B\nmodel: {preset: llama-3.1-405b}\ntraining: {tokens: 15.6T, global_batch: 2048, seq_len: 8192}\nhardware: {count: 16384}\n' >"$T/q405.yaml"
"$BIN" plan "$T/q405.yaml" --format json >"$T/pq.json" 2>"$T/err"
"$BIN" estimate "$T/q405.yaml" --format json >"$T/eq.json" 2>>"$T/err"
# with no layout written, plan's own row is the layout estimate prices
# (the answer), not the unwritten defaults, which do not run
if python3 - "$T/pq.json" "$T/eq.json" >"$T/j" 2>&1 <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
assert p['answer']['runs'] is True and p['plan']['scenario']['runs'] is True, p['plan']['scenario']
assert p['plan']['layouts'][0]['global_batch'] == 2048
assert p['plan']['scenario'] == e['plan']['scenario'], (p['plan']['scenario'], e['plan']['scenario'])
assert p['plan']['scenario_rank'] == e['plan']['scenario_rank']
PY
then
	ok "plan takes the 405B question without a layout: its own row is estimate's answer, which runs"
else
	fail "plan 405B: $(cat "$T/j" "$T/err")"
fi

# one YAML beside two different config.json files is two proposals: the
# inputs differ, not the file bytes (issue 18: refused as "the same")
mkdir -p "$T/pa" "$T/pb"
cp docs/examples/llama3-8b-hf.yaml "$T/pa/run.yaml"
cp docs/examples/llama3-8b-hf.yaml "$T/pb/run.yaml"
cp docs/examples/llama3-8b-config.json "$T/pa/"
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 40/' docs/examples/llama3-8b-config.json >"$T/pb/llama3-8b-config.json"
"$BIN" compare "$T/pa/run.yaml" "$T/pb/run.yaml" --format json -o "$T/pab" >"$T/out" 2>"$T/err" \
	&& ok "one YAML with two different configs compares" || fail "same YAML, two configs: $(cat "$T/err")"
cp docs/examples/llama3-8b-config.json "$T/pb/"
rc=0
"$BIN" compare "$T/pa/run.yaml" "$T/pb/run.yaml" --format json -o "$T/pab2" >"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q 'error: the same inputs as' "$T/err" \
	&& ok "... and with the same config too, it is the same proposal twice" || fail "same inputs (exit $rc): $(cat "$T/err")"

# a sweep over two configs of one name, by absolute paths: the points are
# labelled apart, and the regenerate line is one the tool takes
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 40/' docs/examples/llama3-8b-config.json >"$T/pb/llama3-8b-config.json"
rm -rf "$T/sa"
"$BIN" report "$T/pa/run.yaml" --sweep "model.hf_config=$T/pa/llama3-8b-config.json,$T/pb/llama3-8b-config.json" \
	-o "$T/sa" --format md >/dev/null 2>"$T/err"
if grep -q '^| pa/llama3-8b-config.json | ' "$T/sa/run.md" && grep -q '^| pb/llama3-8b-config.json | ' "$T/sa/run.md" \
	&& grep -q 'sweep model.hf_config=pa/llama3-8b-config.json,pb/llama3-8b-config.json`' "$T/sa/run.md" \
	&& ! grep -q "$T" "$T/sa/run.md"; then
	ok "two configs of one name are labelled apart, without the author's directories"
else
	fail "configs apart: $(grep -n 'llama3-8b-config' "$T/sa/run.md" | head -5; cat "$T/err")"
fi

# a run that almost never fails: its tiny figures as powers of ten, never a
# numeral of 150 digits (issue 18)
rm -rf "$T/rare"
"$BIN" report docs/examples/default-7b.yaml --set hardware.failures_per_node_day=1e-300 \
	--sweep hardware.failures_per_node_day=1e-300,1e-200,1e-9 -o "$T/rare" --format md,html,json >/dev/null 2>"$T/err"
if grep -q -E '[0-9][0-9.,]{30,}' "$T"/rare/*.md "$T"/rare/*.html; then
	fail "a numeral of 30 or more characters: $(grep -o -E '[0-9][0-9.,]{30,}' "$T"/rare/*.md | head -2)"
else
	ok "rare failures print powers of ten, no long numerals"
fi

# a FIFO nobody writes to as a config a sweep reads: an error at once, located
# (issue 18: it blocked for ever)
mkfifo "$T/fifo.json"
cp docs/examples/llama3-8b-hf.yaml docs/examples/llama3-8b-config.json "$T/"
rc=0
B=$BIN; case $B in /*) ;; *) B=$PWD/$B ;; esac
(cd "$T" && timeout 30 "$B" estimate llama3-8b-hf.yaml --sweep "model.hf_config=llama3-8b-config.json,fifo.json") \
	>"$T/out" 2>"$T/err" || rc=$?
[ "$rc" -eq 1 ] && grep -q "^<--sweep>:1:39: error: cannot read hf_config 'fifo.json' (nothing to read: a pipe or device nobody writes to)" "$T/err" \
	&& ok "a FIFO as a swept config is a located error at once" || fail "FIFO config (exit $rc): $(cat "$T/err")"

# extreme values: a token count from 1 to 1e30 by factors of 1e5, one GPU
# and 100,000, in every format: finite figures, nothing printed as NaN or inf
rm -rf "$T/x"
if "$BIN" report docs/examples/default-7b.yaml --sweep training.tokens=1..1e30:x1e5 \
	--sweep hardware.count=1,100000 -o "$T/x" --format md,html,json,pdf >/dev/null 2>"$T/err"; then
	if grep -l -i -E '(^|[^a-z])(nan|-?inf|infinity)([^a-z]|$)' "$T/x"/*.md "$T/x"/*.html "$T/x"/*.json >/dev/null 2>&1; then
		fail "an extreme sweep printed NaN or inf"
	else
		ok "an extreme sweep (1 to 1e30 tokens, 1 and 100,000 GPUs) prints finite figures"
	fi
	grep -q '^| 100,000 | 1 | no |' "$T/x/default-7b.md" && ok "a generated whole number is written as digits (100,000, not 1e+05)" \
		|| fail "generated values: $(grep '^| 1' "$T/x/default-7b.md" | head -3)"
else
	fail "extreme sweep: $(cat "$T/err")"
fi

# grids whose points do not fit: every chart marks them with a cross, drawn
# while its primitives grow (issue 18: a write through a moved array, exit
# 139).  Under check-san this is ASan's to catch.
M=tests/scenarios/min-7b.yaml
rm -rf "$T/g"
"$BIN" report "$M" --sweep hardware.count=8..128:8 --sweep training.micro_batch=1..16 \
	-o "$T/g" --format md,html,json,pdf >/dev/null 2>"$T/err" \
	&& grep -q 'does not fit' "$T/g/min-7b.md" \
	&& ok "a 16 x 16 grid with points that do not fit reports" || fail "2-D grid: $(cat "$T/err")"
rm -rf "$T/g"
"$BIN" compare "$M" docs/examples/default-7b.yaml --sweep hardware.count=8..128:8 \
	--sweep training.micro_batch=1..16 -o "$T/g" --format md,html,json,pdf >/dev/null 2>"$T/err" \
	&& ok "compare of a grid with points that do not fit" || fail "compare grid: $(cat "$T/err")"

# two proposals that differ only in a setting of the step-time model (fp8
# scaling) list it under "What differs", and are not said to price the
# same inputs
mkdir -p "$T/f8"
printf 'title: per tensor\nmodel: {preset: llama-3-8b}\ntraining: {tokens: 100B, precision: fp8-mixed, fp8_recipe: tensorwise}\nparallelism: {framework: fsdp, zero: 3}\nhardware: {gpu: h100-sxm, count: 64}\n' >"$T/f8/tw.yaml"
sed 's/tensorwise/rowwise/; s/per tensor/per row/' "$T/f8/tw.yaml" >"$T/f8/rw.yaml"
"$BIN" compare "$T/f8/tw.yaml" "$T/f8/rw.yaml" -o "$T/f8" --format md >/dev/null 2>"$T/err" \
	&& grep -q '^| fp8 scaling (training.fp8\\_recipe) | tensorwise | rowwise |' "$T/f8/tw-vs-rw.md" \
	&& ! grep -q '^None of the inputs this section compares' "$T/f8/tw-vs-rw.md" \
	&& ok "compare lists fp8 scaling under What differs" \
	|| fail "compare fp8_recipe: $(sed -n '/What differs/,/Headline/p' "$T/f8/tw-vs-rw.md" 2>/dev/null | head -12; cat "$T/err")"

# two GB300 proposals that differ only in the cuDNN release list it, and
# the older release prices a slower step
mkdir -p "$T/cu"
printf 'title: old cudnn\nmodel: {preset: llama-3-8b}\ntraining: {tokens: 100B}\nparallelism: {framework: megatron}\nhardware: {gpu: gb300, count: 72, cudnn: 9.13}\n' >"$T/cu/old.yaml"
sed 's/cudnn: 9.13/cudnn: 9.21/; s/old cudnn/new cudnn/' "$T/cu/old.yaml" >"$T/cu/new.yaml"
"$BIN" compare "$T/cu/old.yaml" "$T/cu/new.yaml" -o "$T/cu" --format md >/dev/null 2>"$T/err" \
	&& grep -q '^| cuDNN release (hardware.cudnn) | 9.13 | 9.21 |' "$T/cu/old-vs-new.md" \
	&& ok "compare lists the cuDNN release under What differs" \
	|| fail "compare cudnn: $(sed -n '/What differs/,/Headline/p' "$T/cu/old-vs-new.md" 2>/dev/null | head -12; cat "$T/err")"

if [ "$fails" -gt 0 ]; then
	echo "cli-compare: $fails failure(s)" >&2
	exit 1
fi
echo "cli-compare: all checks passed"
