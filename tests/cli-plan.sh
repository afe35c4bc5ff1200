#!/bin/sh
# `trainbudget plan` end to end (the golden files are cli-report.sh's):
#   - help and the usage errors of its options;
#   - text, JSON (the contract keys of plan.*), md/html/pdf files as a set
#     of their own (NAME-plan.*), byte-identical runs;
#   - the best layout's figures are `estimate --set` of that layout's: the
#     step, the memory per GPU and the days, exactly;
#   - --objective cost ranks by cost; --count and --gpu search the hardware
#     and give a front;
#   - estimate's line and the report's "Better layouts" section appear when
#     the scenario's layout is more than 5% behind, and not when it is the best.
#   sh tests/cli-plan.sh BIN
set -u
BIN=${1:?usage: sh tests/cli-plan.sh BIN}
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-plan.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
SOURCE_DATE_EPOCH=1735689600
export SOURCE_DATE_EPOCH
fails=0
fail() { echo "cli-plan: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }
D=docs/examples/default-7b.yaml
BIG=docs/examples/llama-3.1-405b.yaml

# ---- help -------------------------------------------------------------------
"$BIN" help plan >"$T/out" 2>&1 && grep -q '^Usage: trainbudget plan \[FILE\]' "$T/out" \
	&& ok "help plan" || fail "help plan: $(head -1 "$T/out")"
"$BIN" plan --help >"$T/out" 2>&1 && grep -q -- '--objective time|cost' "$T/out" \
	&& ok "plan --help names --objective" || fail "plan --help"
"$BIN" help >"$T/out" 2>&1 && grep -q '^  plan \[FILE\]' "$T/out" \
	&& ok "help lists plan" || fail "help lists plan"

# ---- usage errors: exit 2, the first line says what and what was expected ----
while IFS='|' read -r first args; do
	case $first in '#'*|'') continue ;; esac
	# shellcheck disable=SC2086
	"$BIN" plan $args >"$T/out" 2>"$T/err"
	rc=$?
	got=$(head -n 1 "$T/err")
	if [ "$rc" -eq 2 ] && [ "$got" = "$first" ] && [ ! -s "$T/out" ]; then
		ok "plan $args (exit 2)"
	else
		fail "plan $args: exit $rc, first line '$got', expected '$first'"
	fi
done <<'EOF'
trainbudget plan: unknown objective 'speed'; expected time or cost|--objective speed
trainbudget plan: --top '0' is not a count of layouts; expected 1 to 50|--top 0
trainbudget plan: --top '51' is not a count of layouts; expected 1 to 50|--top 51
trainbudget plan: --count '0..8' is not a range; expected A..B with 1 <= A <= B <= 100000000, such as 256..2048|--count 0..8
trainbudget plan: --count '8..4' is not a range; expected A..B with 1 <= A <= B <= 100000000, such as 256..2048|--count 8..4
trainbudget plan: --count '64,64' names 64 twice; expected each value once|--count 64,64
trainbudget plan: --count '1..100000000' gives more than 24 values; expected a narrower range|--count 1..100000000
trainbudget plan: --global-batch 'x' is not a list of counts; expected A..B or up to 24 whole numbers from 1 to 100000000, such as 256,384,512|--global-batch x
trainbudget plan: unknown GPU 'h1000' in --gpu; did you mean 'h100-sxm'?|--gpu h1000
trainbudget plan: --gpu price 'abc' is not a number; expected a price per GPU-hour such as h100-sxm=2.50|--gpu h100-sxm=abc
trainbudget plan: --gpu names 'h200' twice; expected each card once|--gpu h200,h200
trainbudget plan: --max-virtual '0' is not a number of stages; expected 1 to 64|--max-virtual 0
trainbudget plan: --jobs '0' is not a number of threads; expected 1 to 256|--jobs 0
trainbudget plan: --jobs '257' is not a number of threads; expected 1 to 256|-j 257
trainbudget plan: unknown format 'xml' in --format; expected text, json or a comma-separated list of md, html, pdf, json|--format xml
trainbudget plan: unknown option '--sweep'; '--sweep' is not an option of this command|--sweep hardware.count=1,2
EOF

# ---- text ----------------------------------------------------------------------
"$BIN" plan "$D" >"$T/text" 2>"$T/err" && [ ! -s "$T/err" ] \
	&& grep -q '^Searched [0-9,]* candidate layouts' "$T/text" \
	&& grep -q '^  *yours ' "$T/text" && grep -q '^Why$' "$T/text" \
	&& ok "plan prints the table, the scenario's row and why" \
	|| fail "plan text: $(head -3 "$T/text") $(cat "$T/err")"

# ---- threads: the same bytes on 1, 2, 3 and 7 (issue 24) -----------------------
"$BIN" plan "$D" --count 8..512 --gpu h100-sxm,a100-80gb --format json --jobs 1 >"$T/j1.json" 2>/dev/null
same=1
for j in 2 3 7; do
	"$BIN" plan "$D" --count 8..512 --gpu h100-sxm,a100-80gb --format json -j "$j" >"$T/j.json" 2>/dev/null
	cmp -s "$T/j1.json" "$T/j.json" || same=0
	"$BIN" estimate "$D" --format json --jobs "$j" >"$T/e.json" 2>/dev/null
	"$BIN" estimate "$D" --format json --jobs 1 >"$T/e1.json" 2>/dev/null
	cmp -s "$T/e1.json" "$T/e.json" || same=0
done
[ "$same" = 1 ] && [ -s "$T/j1.json" ] && ok "plan and estimate on 1, 2, 3 and 7 threads: the same bytes" \
	|| fail "plan or estimate differ with --jobs"

# ---- JSON: the contract keys, and the same bytes twice -------------------------
"$BIN" plan "$D" --format json >"$T/a.json" && "$BIN" plan "$D" --format json >"$T/b.json" \
	&& cmp -s "$T/a.json" "$T/b.json" && ok "plan --format json twice: the same bytes" \
	|| fail "plan --format json is not reproducible"
if python3 - "$T/a.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["plan"]
for k in ("searched", "feasible", "layouts", "scenario_rank"):
    assert k in p, k
assert p["searched"] == p["pruned_rules"] + p["pruned_batch"] + p["pruned_memory"] + p["feasible"]
keys = ("tensor", "pipeline", "virtual_pipeline", "context", "expert", "data", "zero",
        "checkpointing", "sequence_parallel", "micro_batch", "gpu", "count", "step_s", "mfu",
        "memory_per_gpu_bytes", "seconds", "cost")
assert len(p["layouts"]) == 10
for l in p["layouts"]:
    for k in keys:
        assert k in l, k
    assert l["memory_per_gpu_bytes"] <= l["capacity_bytes"]
s = [l["seconds"] for l in p["layouts"]]
assert s == sorted(s), "ranked by time"
EOF
then ok "plan JSON: plan.searched, feasible, layouts[] with every contract key, scenario_rank"
else fail "plan JSON keys"; fi

# ---- the best layout is the budget's own: estimate --set of it -----------------
sets=$(python3 - "$T/a.json" <<'EOF'
import json, sys
l = json.load(open(sys.argv[1]))["plan"]["layouts"][0]
print(" ".join("--set %s=%s" % kv for kv in [
    ("parallelism.tensor", l["tensor"]), ("parallelism.pipeline", l["pipeline"]),
    ("parallelism.virtual_pipeline", l["virtual_pipeline"]), ("parallelism.context", l["context"]),
    ("parallelism.expert", l["expert"]), ("parallelism.zero", l["zero"]),
    ("parallelism.sequence_parallel", str(l["sequence_parallel"]).lower()),
    ("training.checkpointing", l["checkpointing"]), ("training.micro_batch", l["micro_batch"]),
    ("hardware.mfu", "predicted")]))
EOF
)
# shellcheck disable=SC2086
if "$BIN" estimate "$D" --format json $sets >"$T/e.json" 2>"$T/err" && python3 - "$T/a.json" "$T/e.json" <<'EOF'
import json, sys
l = json.load(open(sys.argv[1]))["plan"]["layouts"][0]
e = json.load(open(sys.argv[2]))
assert e["perf"]["step_s"] == l["step_s"], (e["perf"]["step_s"], l["step_s"])
assert e["perf"]["mfu"] == l["mfu"]
assert e["memory"]["per_gpu"]["total"] == l["memory_per_gpu_bytes"]
assert e["time"]["seconds"][1] == l["seconds"], (e["time"]["seconds"][1], l["seconds"])
assert e["time"]["cost"][1] == l["cost"]
assert e["plan"]["scenario_rank"] == 1, e["plan"]["scenario_rank"]
assert e["plan"]["better_exists"] is False
EOF
then ok "the best layout's step, MFU, memory, days and cost are estimate --set's, exactly; it ranks 1"
else fail "plan's best against estimate --set: $(cat "$T/err")"; fi
# shellcheck disable=SC2086
"$BIN" estimate "$D" $sets >"$T/e.txt" && ! grep -q 'the search finds one' "$T/e.txt" \
	&& ok "estimate of the best layout has no 'better layout' line" \
	|| fail "estimate of the best layout still says a better one exists"

# ---- objective, hardware ----------------------------------------------------------
# At $0.60 an hour the A100 is slower but cheaper than the H100 at the
# scenario's $2.50 (its peak is a third), so the front holds both cards.
if "$BIN" plan "$D" --format json --objective cost --count 16..128 --gpu h100-sxm,a100-80gb=0.60 \
	>"$T/c.json" 2>"$T/err" && python3 - "$T/c.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
c = [l["cost"] for l in p["layouts"]]
assert c == sorted(c), "ranked by cost"
assert p["hardware_searched"] and p["objective"] == "cost"
assert [g["name"] for g in p["gpus"]] == ["h100-sxm", "a100-80gb"]
assert [g["price_given"] for g in p["gpus"]] == [True, True]
f = p["front"]
assert len(f) >= 2
for a, b in zip(f, f[1:]):
    assert a["seconds"] <= b["seconds"] and a["cost"] > b["cost"]
assert {l["count"] for l in f} <= {16, 32, 64, 128}
EOF
then ok "--objective cost --count --gpu: ranked by cost, a front of days against cost"
else fail "--objective cost with hardware: $(cat "$T/err")"; fi

# a card ranked on another card's efficiencies says so, and which (issue
# 20: B200's matmul and FlashAttention-2 are measured, its cuDNN attention
# is H100's; GB300's matmul is copied, its attention its own), a measured
# one does not: the example runs FlashAttention-2 (no framework), a
# Megatron-LM run cuDNN's
"$BIN" plan "$D" --gpu h100-sxm,b200,gb300 >"$T/cards" 2>"$T/err"
{ cat "$D"; printf 'parallelism:\n  framework: megatron\n'; } >"$T/mlm.yaml"
"$BIN" plan "$T/mlm.yaml" --gpu h100-sxm,b200,gb300 >"$T/cards-mlm" 2>>"$T/err"
! grep -q '^b200 is ranked on' "$T/cards" \
	&& grep -q '^gb300 is ranked on matmul efficiency assumed from another card' "$T/cards" \
	&& grep -q '^b200 is ranked on attention efficiency assumed from another card' "$T/cards-mlm" \
	&& grep -q '^gb300 is ranked on matmul efficiency assumed from another card' "$T/cards-mlm" \
	&& ! grep -q '^h100-sxm is ranked on' "$T/cards" "$T/cards-mlm" \
	&& ok "plan says which cards are ranked on assumed efficiencies" \
	|| fail "assumed efficiencies: $(tail -4 "$T/cards"; cat "$T/err")"

# mxfp8 written for a Blackwell card: a Hopper card in the same search has
# no MX block scaling and is ranked with blockwise scaling, and says so
printf 'title: mx\nmodel: {preset: llama-3-8b}\ntraining: {tokens: 100B, precision: fp8-mixed, fp8_recipe: mxfp8}\nhardware: {gpu: b200, count: 64}\n' >"$T/mx.yaml"
"$BIN" plan "$T/mx.yaml" --gpu b200,h100-sxm >"$T/mx" 2>"$T/err"
grep -q '^h100-sxm has no MX block scaling: it is ranked with training.fp8_recipe blockwise' "$T/mx" \
	&& ! grep -q '^b200 has no MX' "$T/mx" \
	&& ok "plan ranks a card without MX block scaling on blockwise fp8 and says so" \
	|| fail "mxfp8 across cards: $(tail -4 "$T/mx"; cat "$T/err")"

# a best layout above the best published MFU of its card says so and names
# the run (issue 20: 63.9% on H100 for the built-in 7B, 59.4% counting
# attention as causal as the published figures are, where the best
# published H100 run in 16 bits is 47.0%); Meta's own 405B layout, within
# a tenth of the 41% Meta published for it (Table 4), does not
"$BIN" plan >"$T/ceil" 2>"$T/err"
"$BIN" estimate docs/examples/llama-3.1-405b.yaml >"$T/ceil405" 2>>"$T/err"
tr '\n' ' ' <"$T/ceil" | grep -q "best layout's predicted MFU, 6[0-9.]*% (5[0-9.]*% on causal attention), is above the best published on h100-sxm in 16 bits: 47.0%, Megatron MoE Model Zoo" \
	&& grep -q "MFU \(3[7-9]\|4[0-5]\)%" "$T/ceil405" && ! grep -q "is above the best published" "$T/ceil405" \
	&& ok "plan warns where the best layout beats every published run on its card" \
	|| fail "ceiling: $(tail -6 "$T/ceil"; cat "$T/err")"

# where the held-out runs on a card and format miss by more than the 10%
# bar (GB200 in fp8: a median 16% short over 9 sources when written; the
# figures are make validate's, so only their shape is pinned), the estimate and
# the plan say so; where they do not (H100 in 16 bits), neither does; a
# pilot's calibration on the card answers it instead
printf 'title: rec\nmodel: {preset: llama-3-8b}\ntraining: {tokens: 100B, precision: fp8-mixed}\nhardware: {gpu: gb200, count: 64}\n' >"$T/rec.yaml"
"$BIN" estimate "$T/rec.yaml" >"$T/rec" 2>"$T/err"
"$BIN" plan "$T/rec.yaml" >"$T/recp" 2>>"$T/err"
"$BIN" estimate >"$T/rec-h" 2>>"$T/err"
"$BIN" plan "$T/rec.yaml" --gpu gb200,h100-sxm --count 64,128 --format md -o "$T/recd" >/dev/null 2>>"$T/err"
"$BIN" estimate "$T/rec.yaml" --format json >"$T/rec.json" 2>>"$T/err"
"$BIN" estimate --format json >"$T/rec-h.json" 2>>"$T/err"
tr '\n' ' ' <"$T/rec" | grep -q "Held-out record: on gb200 in fp8 the model's steps were a median 1[0-9]% shorter than published over the [0-9]* runs of [0-9]* sources held out of its fit" \
	&& tr '\n' ' ' <"$T/recp" | grep -q "Held-out record of the best layout's card: on gb200 in fp8" \
	&& grep -q '^| gb200 | .* | -1[0-9].[0-9]% over [0-9]* sources, [0-9]* within 10%; said with its predictions |$' "$T/recd/rec-plan.md" \
	&& grep -q '^| h100-sxm | .* | [-+][0-9].[0-9]% over [0-9]* sources, [0-9]* within 10% |$' "$T/recd/rec-plan.md" \
	&& ! grep -q "Held-out record" "$T/rec-h" \
	&& python3 -c 'import json, sys
g = json.load(open(sys.argv[1]))["perf"]["held_out_record"]
h = json.load(open(sys.argv[2]))["perf"]["held_out_record"]
assert (g["card"], g["format"], g["said"]) == ("gb200", "fp8", True) and g["median_error"] < -0.10, g
assert (h["card"], h["format"], h["said"]) == ("h100-sxm", "16 bits", False) and abs(h["median_error"]) <= 0.10, h
assert 0 <= g["sources_within"] <= g["sources"] <= g["runs"], g' "$T/rec.json" "$T/rec-h.json" 2>>"$T/err" \
	&& ok "estimate and plan say where the card's held-out runs miss by more than 10%" \
	|| fail "record: $(cat "$T/rec" "$T/err" | tail -8)"

# an inline card that borrows the name gb200 with peaks of its own is not
# the table's GB200: its node and efficiencies come by name (said), its
# record does not (nor its ceiling: test_record.c)
printf 'title: inl\nmodel: {preset: llama-3-8b}\ntraining: {tokens: 100B, precision: fp8-mixed}\nhardware:\n  count: 64\n  gpu: {name: gb200, label: "<b>x</b>", memory: 96GB, bf16: 500T, fp8: 1000T, bandwidth: 2TB}\n' >"$T/inl.yaml"
"$BIN" estimate "$T/inl.yaml" >"$T/inl" 2>"$T/err"
"$BIN" estimate "$T/inl.yaml" --format json >"$T/inl.json" 2>>"$T/err"
! grep -q "Held-out record" "$T/inl" \
	&& python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["perf"]["held_out_record"] is None, d["perf"]["held_out_record"]' "$T/inl.json" 2>>"$T/err" \
	&& ok "an inline card under a table name is held to no record of the table card" \
	|| fail "inline record: $(cat "$T/inl" "$T/err" | tail -8)"

# the scenario's own row is the layout estimate prices: the 405B example
# writes no virtual_pipeline, the answer chooses 4, and plan ranks that
# (not the unwritten default of 1) with estimate's gain over it
"$BIN" plan "$BIG" >"$T/own" 2>"$T/err"
"$BIN" plan "$BIG" --format json >"$T/own.json" 2>>"$T/err"
"$BIN" estimate "$BIG" --format json >"$T/own-e.json" 2>>"$T/err"
"$BIN" estimate "$BIG" >"$T/own-e" 2>>"$T/err"
gain=$(sed -n 's/.*the search finds one \([0-9.]*%\) faster.*/\1/p' "$T/own-e")
if python3 - "$T/own.json" "$T/own-e.json" >"$T/j" 2>&1 <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
assert p['plan']['scenario']['virtual_pipeline'] == 4, p['plan']['scenario']
assert p['plan']['scenario'] == e['plan']['scenario']
assert p['plan']['scenario_rank'] == e['plan']['scenario_rank'] > 1
PY
then
	[ -n "$gain" ] && tr '\n' ' ' <"$T/own" | grep -q "virtual_pipeline chosen by the search, as estimate prices it) ranks [0-9,]* of [0-9,]*; the best is $gain faster" \
		&& ok "plan ranks the layout estimate prices as the scenario's own, with estimate's gain" \
		|| fail "own row text: gain '$gain'; $(grep -A3 '^Your layout' "$T/own")"
else
	fail "own row: $(cat "$T/j" "$T/err")"
fi

# a written layout that cannot run: plan says so from the answer and ranks
# what estimate prices instead, in its text, JSON and document alike
tight="--set parallelism.zero=0 --set parallelism.tensor=1 --set parallelism.pipeline=1 --set parallelism.context=1 --set training.micro_batch=1 --set training.checkpointing=none"
# shellcheck disable=SC2086
"$BIN" plan "$D" $tight >"$T/rep" 2>"$T/err"
# shellcheck disable=SC2086
"$BIN" plan "$D" $tight --format json >"$T/rep.json" 2>>"$T/err"
# shellcheck disable=SC2086
"$BIN" estimate "$D" $tight --format json >"$T/rep-e.json" 2>>"$T/err"
mkdir "$T/repdoc"
# shellcheck disable=SC2086
"$BIN" plan "$D" $tight --format md -o "$T/repdoc" >/dev/null 2>>"$T/err"
if tr '\n' ' ' <"$T/rep" | grep -q "^.*Your layout (TP 1, DP 64, micro-batch 1, no recomputation) cannot run (141 GB of 85.5 GB per GPU; ZeRO-1 fits, [-+0-9]*% step); estimate and report price the fastest that runs (TP 1, DP 64, ZeRO-1" \
	&& python3 -c "
import json, sys
p = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2]))
assert p['answer']['layout_source'] == 'replaced'
assert p['plan']['scenario'] == e['plan']['scenario'] and p['plan']['scenario']['zero'] == 1
" "$T/rep.json" "$T/rep-e.json" 2>>"$T/err" \
	&& grep -q "as every document prices it: cannot run as written (141 GB of 85.5 GB per GPU" "$T/repdoc/default-7b-plan.md"; then
	ok "plan explains a written layout that cannot run and ranks the one estimate prices"
else
	fail "replaced: $(grep -A4 '^Your layout' "$T/rep"; cat "$T/err")"
fi

# ---- files: a set of its own ---------------------------------------------------------
mkdir "$T/o"
"$BIN" report "$D" --format md,json -o "$T/o" >/dev/null 2>&1
"$BIN" plan "$D" --format md,html,pdf,json -o "$T/o" >"$T/out" 2>"$T/err"
if [ -s "$T/o/default-7b-plan.md" ] && [ -s "$T/o/default-7b-plan.pdf" ] \
	&& [ -s "$T/o/default-7b-plan.json" ] && [ -s "$T/o/default-7b-plan.sha256" ] \
	&& [ -s "$T/o/default-7b.md" ] && [ -s "$T/o/default-7b.json" ] \
	&& (cd "$T/o" && sha256sum -c --quiet default-7b-plan.sha256); then
	ok "plan --format md,html,pdf,json writes the NAME-plan set beside the report's"
else
	fail "plan files: $(cat "$T/out" "$T/err")"
fi
# a --template joins the inputs: the document and its JSON print one digest
printf '# {{scenario.title}}\n\nInputs {{scenario.inputs_sha256}}\n' >"$T/pt.md"
"$BIN" plan "$D" --template "$T/pt.md" --format md,json -o "$T/pt" >/dev/null 2>"$T/err"
want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["scenario"]["inputs_sha256"])' "$T/pt/default-7b-plan.json" 2>/dev/null)
if [ -n "$want" ] && grep -q "Inputs $want" "$T/pt/default-7b-plan.md" \
	&& grep -q '"role": "template"' "$T/pt/default-7b-plan.json"; then
	ok "plan --template: the document and its JSON print the same inputs digest"
else
	fail "plan --template digest: $(cat "$T/err")"
fi
"$BIN" plan "$D" --name run-7b --format md -o "$T/o" >/dev/null 2>"$T/err" \
	&& [ -s "$T/o/run-7b-plan.md" ] && grep -q 'trainbudget plan docs/examples/default-7b.yaml --name run-7b' "$T/o/run-7b-plan.md" \
	&& ok "plan --name NAME writes NAME-plan.* and keeps --name in the regenerate line" \
	|| fail "plan --name: $(ls "$T/o") $(cat "$T/err")"
grep -q '^## The best layouts' "$T/o/default-7b-plan.md" && grep -q '^## Why the winner wins' "$T/o/default-7b-plan.md" \
	&& ok "the plan document's sections" || fail "plan document sections"
cp "$T/o/default-7b-plan.pdf" "$T/first.pdf"
"$BIN" plan "$D" --format pdf -o "$T/o" >/dev/null 2>&1
cmp -s "$T/o/default-7b-plan.pdf" "$T/first.pdf" && ok "plan PDF twice: the same bytes" \
	|| fail "plan PDF is not reproducible"

# ---- estimate's line and the report's section ------------------------------------------
"$BIN" estimate "$BIG" >"$T/big.txt" 2>&1 && grep -q '^  layout    the search finds one [0-9.]*% faster: TP ' "$T/big.txt" \
	&& ok "estimate says a faster layout exists for $BIG" || fail "estimate line: $(grep layout "$T/big.txt")"
mkdir "$T/r"
"$BIN" report "$BIG" --format md -o "$T/r" >/dev/null 2>&1 \
	&& grep -q '^## Better layouts' "$T/r/llama-3.1-405b.md" \
	&& ok "the report of $BIG has a 'Better layouts' section" || fail "no Better layouts section"
# shellcheck disable=SC2086
"$BIN" report "$D" --format md -o "$T/r" $sets >/dev/null 2>&1 \
	&& ! grep -q '^## Better layouts' "$T/r/default-7b.md" \
	&& ok "no 'Better layouts' section when the layout is the best" || fail "Better layouts shown for the best layout"

# ---- a model with only a parameter count ------------------------------------------------
printf 'title: count only\nmodel:\n  params: 7B\ntraining:\n  tokens: 1B\nhardware:\n  gpu: h100-sxm\n  count: 8\n' >"$T/count.yaml"
"$BIN" plan "$T/count.yaml" >"$T/out" 2>&1 && grep -q '^No layout search: the model has only a parameter count' "$T/out" \
	&& ok "a count-only model: no search, and why" || fail "count-only: $(cat "$T/out")"

# ---- layouts of the same cost are one row listing the variants (issue 19) ----
# forward only: nothing to reduce or keep, so ZeRO's stages and
# recomputation price alike
"$BIN" plan "$D" --set training.method=frozen >"$T/out" 2>&1
grep -q '^    1-6 64 h100-sxm ' "$T/out" && grep -q '^  1-6 also as TP 1, DP 64, ZeRO-1, micro-batch 16, no recomputation' "$T/out" \
	&& ok "plan: layouts of the same step and memory share a row, the variant named below" \
	|| fail "same-cost rows: $(sed -n 6,16p "$T/out")"
"$BIN" plan "$D" --set training.method=frozen --format json >"$T/j.json" 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["plan"]["layouts"]) == 10' "$T/j.json" 2>/dev/null \
	&& ok "... while JSON keeps every ranked layout" || fail "JSON layouts after collapsing"

# ---- a batch past the run: never a run shorter than one step (issue 18) ----
"$BIN" plan "$D" --global-batch 67108864 >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && [ "$(head -1 "$T/err")" = "trainbudget plan: error: --global-batch: every global batch searched holds more than the run's 100B tokens in one step (sequences of 4,096), so the run would end before its first optimizer step; expected at most 24,414,062 sequences" ] \
	&& ok "plan refuses a global batch past the run's tokens, naming the largest" || fail "batch past the run (exit $rc): $(cat "$T/err")"
"$BIN" plan "$D" --global-batch 1024,67108864 --format json >"$T/j" 2>"$T/err" \
	&& python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert {l["global_batch"] for l in d["plan"]["layouts"]} == {1024}' "$T/j" \
	&& ok "... and ranks only the batches that leave a whole step" || fail "mixed batches: $(cat "$T/err")"

# ---- bounded: a space past the bound, and progress on a terminal (issue 18) ----
H=tests/scenarios/huge-space.yaml
rm -rf "$T/huge"
timeout 60 "$BIN" plan "$H" -o "$T/huge" --format md,json >"$T/out" 2>"$T/err"
rc=$?
[ "$rc" -eq 1 ] && grep -q '^trainbudget plan: error: the layout space holds 2.16e+13 candidates, more than the bound of 4 billion; expected fewer GPU counts' "$T/err" \
	&& [ ! -e "$T/huge" ] && ok "plan refuses a space past the bound up front, naming it, writing nothing" \
	|| fail "plan past the bound (exit $rc): $(cat "$T/err")"
timeout 60 "$BIN" estimate "$H" >"$T/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'No layout search: its space .* holds 2.16e+13 candidates, more than the bound of 4 billion' "$T/out" \
	&& ok "estimate past the bound: its own layout priced, the warning says why nothing was searched" \
	|| fail "estimate past the bound (exit $rc): $(tail -3 "$T/out")"
# (only where `script` can open a pseudo-terminal: a chroot without
# /dev/pts, as tools/fresh-machine makes, cannot)
if command -v script >/dev/null && script -qec 'echo pty-ok' /dev/null </dev/null 2>/dev/null | grep -q pty-ok; then
	# a search of over half a second on one thread (the line waits a
	# quarter of a second: shorter searches, as on a fast machine with
	# every core, never show it; the six cards this took until 2026-12-04
	# came down to 0.26 s), on a pseudo-terminal: the progress line
	# appears there, and never in a pipe
	long="docs/examples/deepseek-v3.yaml --unset parallelism.pipeline_layout --count 64..16384 --gpu h100-sxm,h200,b200,mi300x,a100-80gb,h800,gb200,h20 --global-batch 7680..15360 --jobs 1"
	script -qec "$BIN plan $long" /dev/null >"$T/tty" 2>&1 </dev/null
	"$BIN" plan $long >/dev/null 2>"$T/err"
	grep -q 'searching layouts: .*% of 3.41e+09 candidates' "$T/tty" && [ ! -s "$T/err" ] \
		&& ok "a long search shows progress on a terminal, and not on a pipe" \
		|| fail "progress: $(tr '\r' '\n' <"$T/tty" | grep searching | head -2; cat "$T/err")"
else
	ok "progress line: skipped, no pseudo-terminal here"
fi

# ---- a head-heavy last stage (issue 20): the plan names the layout that
# unloads it, and that layout, written, is priced at the step it said (the
# example writes it; unset, its 16 stages split evenly) ----
"$BIN" plan docs/examples/deepseek-v3.yaml --unset parallelism.pipeline_layout >"$T/ds" 2>&1
lay=$(tr '\n' ' ' <"$T/ds" | sed -n 's/.*parallelism.pipeline_layout *"\([^"]*\)").*/\1/p')
said=$(tr '\n' ' ' <"$T/ds" | sed -n 's/.*it takes \([0-9.]*\) s a step instead of.*/\1/p')
step=$("$BIN" estimate docs/examples/deepseek-v3.yaml --set "parallelism.pipeline_layout=$lay" \
	--set parallelism.sequence_parallel=false --set training.micro_batch=1 --unset hardware.mfu --format json |
	sed -n 's/^    "step_s": \([0-9.]*\),$/\1/p' | head -1)
if [ "$lay" = "Et*4|(t*4|)*14,tmL" ] && [ -n "$said" ] && [ -n "$step" ] &&
	awk -v a="$step" -v b="$said" 'BEGIN { exit !(sprintf("%.3g", a) + 0 == b + 0) }'; then
	ok "plan names the lighter last rank ($lay, $said s), and the layout written is priced at it"
else
	fail "balanced layout: '$lay' said '$said' s, priced '$step' s"
fi
"$BIN" estimate docs/examples/deepseek-v3.yaml --unset parallelism.pipeline_layout >"$T/est" 2>&1
grep -qF "split     the last stage, with the output head, is the slowest: parallelism.pipeline_layout \"$lay\" gives the last rank 1 layer, $said s a step" "$T/est" \
	&& ok "estimate says the same split and step" \
	|| fail "estimate's split line: $(grep -F 'split ' "$T/est")"

# a card without a known SM count is ranked without the overlapped GEMMs'
# margins, and the plan says so; a card with one is not named
"$BIN" plan docs/examples/llama-3.1-405b.yaml --set parallelism.zero=1 --set parallelism.overlap_tp=true \
	--set parallelism.framework=megatron --gpu h100-sxm,gb200 >"$T/ubplan" 2>&1
grep -qF "gb200 has no known SM count: the SMs the overlapped GEMMs give up (parallelism.overlap_tp_sms) are not priced on it." "$T/ubplan" \
	&& ! grep -q "h100-sxm has no known SM count" "$T/ubplan" \
	&& ok "plan says which cards it ranks without the overlapped GEMMs' SMs" \
	|| fail "SM note: $(grep 'SM count' "$T/ubplan")"

# fp8 attention: YAML's boolean spellings and the recipe's name give the
# same answer where they mean the same (Megatron-LM's delayed scaling),
# the JSON names the recipe priced, and a B300 says its figure is GB300's
f8="--set hardware.gpu=b300 --set hardware.count=64 --set training.precision=fp8-mixed --set parallelism.framework=megatron"
# shellcheck disable=SC2086
for v in yes True delayed; do
	"$BIN" estimate docs/examples/default-7b.yaml $f8 --set "training.fp8_attention=$v" --format json \
		>"$T/f8a.$v.json" 2>&1 || fail "fp8_attention=$v: exit $?"
done
# shellcheck disable=SC2086
"$BIN" estimate docs/examples/default-7b.yaml $f8 --format json >"$T/f8a.off.json" 2>&1
s_yes=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/f8a.yes.json" | head -1)
s_del=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/f8a.delayed.json" | head -1)
s_tru=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/f8a.True.json" | head -1)
s_off=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/f8a.off.json" | head -1)
if [ -n "$s_yes" ] && [ "$s_yes" = "$s_del" ] && [ "$s_yes" != "$s_off" ] &&
	[ "$s_yes" = "$s_tru" ] &&
	grep -q '"recipe": "delayed"' "$T/f8a.yes.json" &&
	grep -q "cuDNN's fp8 attention on b300 is priced at" "$T/f8a.yes.json"; then
	ok "training.fp8_attention: yes, True and delayed price alike ($s_yes s), unlike false ($s_off s)"
else
	fail "fp8_attention: yes '$s_yes', delayed '$s_del', false '$s_off'"
fi

# hardware.cudnn: a B300 under 9.13 prices the attention measured under
# 9.13.1, slower than the newest release (the default) and 9.21 (9.22's
# timings, the nearest); an H100 has no series and ignores it
for v in 9.13 9.21; do
	# shellcheck disable=SC2086
	"$BIN" estimate docs/examples/default-7b.yaml $f8 --set "hardware.cudnn=$v" --format json \
		>"$T/cu.$v.json" 2>&1 || fail "cudnn=$v: exit $?"
done
s_13=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/cu.9.13.json" | head -1)
s_21=$(sed -n 's/^    "step_s": \([0-9.e+-]*\),$/\1/p' "$T/cu.9.21.json" | head -1)
if [ -n "$s_13" ] && [ "$s_21" = "$s_off" ] && [ "$s_13" != "$s_off" ] &&
	grep -q '"release": "9.13.1"' "$T/cu.9.13.json" && grep -q '"release": "9.22"' "$T/cu.9.21.json" &&
	grep -q '"cudnn": "9.21"' "$T/cu.9.21.json"; then
	ok "hardware.cudnn: 9.13 prices the 9.13.1 attention ($s_13 s), 9.21 the newest ($s_21 s)"
else
	fail "cudnn: 9.13 '$s_13', 9.21 '$s_21', default '$s_off'"
fi
"$BIN" estimate docs/examples/default-7b.yaml --set hardware.cudnn=9.21 --format json >"$T/cu.h.json" 2>&1
if grep -q '"cudnn_attention": null' "$T/cu.h.json"; then
	ok "hardware.cudnn: a card without a series of releases prices its measured rate"
else
	fail "cudnn on the default card: $(grep cudnn_attention "$T/cu.h.json")"
fi

if [ "$fails" -eq 0 ]; then
	echo "cli-plan: all checks passed"
else
	echo "cli-plan: $fails failed" >&2
	exit 1
fi
