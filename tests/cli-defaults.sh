#!/bin/sh
# Defaults and everyday use (issue 9): a default never makes a scenario
# invalid, --set switches the kind of model and --unset removes a key,
# report - takes its NAME from --name, a published report never shows an
# absolute path, --paper is case-insensitive, and unknown options get a
# did-you-mean.  Run by tests/cli.sh as `sh tests/cli-defaults.sh BIN`.
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-defaults.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}
# expect RC DESC CMD...: the exit status of CMD.
expect() {
	e_want=$1 e_desc=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$e_want" ]; then ok "$e_desc (exit $e_want)"; else no "$e_desc: exit $rc, expected $e_want" "$(head -n 3 "$T/err")"; fi
}
first_err() {
	got=$(head -n 1 "$T/err")
	if [ "$got" = "$1" ]; then ok "$2"; else no "$2" "got:      $got" "expected: $1"; fi
}
has() {    # has FILE TEXT DESC: a fixed string in FILE
	if grep -qF -- "$2" "$1"; then ok "$3"; else no "$3" "no '$2' in: $(head -c 600 "$1")"; fi
}
hasnt() {
	if grep -qF -- "$2" "$1"; then no "$3" "found '$2'"; else ok "$3"; fi
}

# ---- defaults never make a scenario invalid --------------------------------
# The issue's cases, as a new user writes them (title and the three keys).
printf 'title: 405B\nmodel: {preset: llama-3.1-405b}\ntraining: {tokens: 15T}\nhardware: {count: 16384}\n' >"$T/405b.yaml"
printf 'title: V100\nmodel: {preset: llama-2-7b}\ntraining: {tokens: 1T}\nhardware: {gpu: v100-sxm2, count: 1024}\n' >"$T/v100.yaml"
printf 'title: GPT-2\nmodel: {preset: gpt2}\ntraining: {tokens: 10B}\nhardware: {count: 8}\n' >"$T/gpt2.yaml"
for f in 405b v100 gpt2; do
	expect 0 "check $f with its defaults" "$BIN" check "$T/$f.yaml"
done
expect 0 "estimate 405B on 16,384 GPUs" "$BIN" estimate "$T/405b.yaml"
# the layout is the answer's (issue 19): the default batch of 1,024 is
# kept, and the layout chosen to split it, said before the figures
hasnt "$T/out" "Adapted:         training.global_batch" "the default global batch is not bent to a default layout"
has "$T/out" "chosen by the layout search" "estimate says the layout was chosen, and how"
expect 0 "estimate V100" "$BIN" estimate "$T/v100.yaml"
has "$T/out" "Adapted:         training.precision fp16-mixed instead of the default bf16-mixed: NVIDIA Tesla V100 SXM2 32GB has no bf16 peak" \
	"estimate says the default precision followed the GPU"
has "$T/out" "Memory per GPU (fp16-mixed," "the V100 budget is priced in fp16-mixed"
expect 0 "estimate GPT-2 --format json" "$BIN" estimate "$T/gpt2.yaml" --format json
has "$T/out" '"seq_len": 1024,' "GPT-2's default sequence is its 1,024 positions"
tr -d ' \n' <"$T/out" >"$T/flat.json"
has "$T/flat.json" '"adapted":[{"key":"training.seq_len","value":"1024","default":"4096","why":' "JSON inputs.adapted names it"
mkdir "$T/r"
expect 0 "report V100" "$BIN" report "$T/v100.yaml" --format md,pdf -o "$T/r"
has "$T/r/v100.md" "| Precision | fp16-mixed (matmuls in fp16) (adapted: training.precision fp16-mixed instead of the default bf16-mixed: NVIDIA Tesla V100 SXM2 32GB has no bf16 peak) |" \
	"the report's assumptions say the precision was adapted"
if command -v pdftotext >/dev/null 2>&1; then
	pdftotext "$T/r/v100.pdf" "$T/r/v100.txt" 2>/dev/null
	has "$T/r/v100.txt" "adapted: training.precision" "so does the PDF"
fi
expect 0 "estimate with the defaults adapted by --set" "$BIN" estimate docs/examples/default-7b.yaml \
	--unset training.global_batch --set hardware.count=1536 --set training.micro_batch=1 \
	--set parallelism.tensor=1 --set parallelism.pipeline=1 --set parallelism.context=1
has "$T/out" "training.global_batch 1536 instead of the default 1024" "a --set count adapts an --unset batch when the layout is written"
expect 1 "a written global batch that cannot work" "$BIN" check docs/examples/default-7b.yaml --set hardware.count=1536 \
	--set training.micro_batch=1 --set parallelism.tensor=1 --set parallelism.pipeline=1 --set parallelism.context=1
first_err "docs/examples/default-7b.yaml:16:17: error: training.global_batch (1024) is not a multiple of data-parallel size x micro_batch (1536 x 1 = 1536); expected whole micro-batches on every replica: global_batch 1536 would work" \
	"it names a value that would work"

# ---- options -------------------------------------------------------------
expect 2 "report --out" "$BIN" report --out "$T/o"
first_err "trainbudget report: unknown option '--out'; did you mean '-o' (--output)?" "--out suggests -o"
expect 2 "report --outdir" "$BIN" report --outdir "$T/o"
first_err "trainbudget report: unknown option '--outdir'; did you mean '-o' (--output)?" "--outdir suggests -o"
expect 2 "report --outdir=DIR" "$BIN" report --outdir="$T/o"
first_err "trainbudget report: unknown option '--outdir'; did you mean '-o' (--output)?" "--outdir=DIR suggests -o"
expect 2 "estimate --out" "$BIN" estimate --out x
first_err "trainbudget estimate: unknown option '--out'; '--output' is an option of 'compare', 'plan' and 'report', not of this command" \
	"--out to estimate names report's option"
expect 2 "report --templ" "$BIN" report --templ x
first_err "trainbudget report: unknown option '--templ'; did you mean '--template'?" "a prefix names its option"
[ ! -e "$T/o" ] && ok "a usage error writes nothing" || no "a usage error writes nothing"

mkdir "$T/p"
expect 0 "report --paper Letter" "$BIN" report --paper Letter --format pdf -o "$T/p"
expect 0 "report --paper A4" "$BIN" report --paper A4 --format pdf -o "$T/p"
expect 0 "report --paper LETTER" "$BIN" report --paper LETTER --format md -o "$T/p"
has "$T/p/default.md" "--paper letter" "the regenerate line spells the paper as --paper letter"
expect 2 "report --paper leter" "$BIN" report --paper leter -o "$T/p"
first_err "trainbudget report: unknown paper size 'leter'; expected a4 or letter (did you mean 'letter'?)" \
	"a misspelt paper size suggests"

# ---- report - and --name ---------------------------------------------------
ex=docs/examples/default-7b.yaml
mkdir "$T/n"
run sh -c '"$1" report - --format json,md -o "$2" <"$3"' sh "$BIN" "$T/n" "$ex"
[ "$rc" -eq 0 ] && [ -f "$T/n/stdin.json" ] && [ -f "$T/n/stdin.md" ] \
	&& ok "report - names its files stdin.*" || no "report - names its files stdin.*" "$(ls "$T/n")"
run sh -c '"$1" report - --name run-7b --format json,md -o "$2" <"$3"' sh "$BIN" "$T/n" "$ex"
[ "$rc" -eq 0 ] && [ -f "$T/n/run-7b.json" ] && [ -f "$T/n/run-7b.md" ] && [ -f "$T/n/run-7b.sha256" ] \
	&& ok "report - --name run-7b writes run-7b.*" || no "report - --name run-7b writes run-7b.*" "$(ls "$T/n")"
has "$T/n/run-7b.json" '"name": "run-7b"' "--name is JSON's scenario.name"
has "$T/n/run-7b.md" '`trainbudget report - --name run-7b' "the regenerate line keeps --name"
expect 0 "estimate --name" "$BIN" estimate "$ex" --name x1 --format json
has "$T/out" '"name": "x1"' "estimate --name sets scenario.name"
for bad in ../up .hidden a/b ""; do
	expect 2 "report --name '$bad'" "$BIN" report --name "$bad" -o "$T/n"
done
first_err "trainbudget report: --name '' is not a file name; expected a printable name without '/', not starting with '.', such as llama-70b-run" \
	"a bad --name is explained"

# ---- no absolute path in a published report --------------------------------
mkdir "$T/abs"
cp "$ex" "$T/abs/my-run.yaml"
cp docs/examples/llama3-8b-config.json "$T/abs/cfg.json"
expect 0 "report an absolute path" "$BIN" report "$T/abs/my-run.yaml" --format md,html,pdf \
	--set "model.hf_config=$T/abs/cfg.json" --template "$(pwd)/templates/report.md" -o "$T/abs"
has "$T/abs/my-run.md" '`trainbudget report my-run.yaml --set model.hf_config=cfg.json --template report.md`' \
	"the regenerate line shows file names, not absolute paths"
hasnt "$T/abs/my-run.md" "$T" "the Markdown holds no absolute path of this machine"
hasnt "$T/abs/my-run.html" "$T" "the HTML holds no absolute path of this machine"
if command -v pdftotext >/dev/null 2>&1; then
	pdftotext "$T/abs/my-run.pdf" "$T/abs/pdf.txt" 2>/dev/null
	hasnt "$T/abs/pdf.txt" "$T" "the PDF holds no absolute path of this machine"
fi

mkdir "$T/cmp"
expect 0 "compare absolute paths" "$BIN" compare "$(pwd)/docs/examples/compare/7b-2t.yaml" \
	"$(pwd)/docs/examples/compare/13b-1t.yaml" --unset plan.budget --format md,json -o "$T/cmp"
has "$T/cmp/7b-2t-vs-13b-1t.md" '`trainbudget compare 7b-2t.yaml 13b-1t.yaml --unset plan.budget`' \
	"a comparison's regenerate line shows file names and --unset"
hasnt "$T/cmp/7b-2t-vs-13b-1t.md" "$(pwd)" "the comparison holds no absolute path of this machine"
hasnt "$T/cmp/7b-2t-vs-13b-1t.json" "$(pwd)" "nor does its JSON"
has "$T/cmp/7b-2t-vs-13b-1t.json" '"path": "7b-2t.yaml"' "the JSON names the file"

# ---- --set switches the kind of model; --unset -----------------------------
hf=docs/examples/llama3-8b-hf.yaml
# the file's 8,192-token sequence is written: GPT-2's 1,024 positions refuse it
expect 1 "--set model.preset=gpt2 under a written 8,192 sequence" "$BIN" estimate "$hf" --set model.preset=gpt2
first_err "$hf:12:12: error: training.seq_len (8192) is longer than the model's learned position table (model.max_positions 1024); expected at most 1024: seq_len 1024 would work" \
	"a written sequence longer than the position table names the limit"
expect 0 "--set model.preset over a config.json" "$BIN" estimate "$hf" --set model.preset=gpt2 \
	--unset training.seq_len --format json
has "$T/out" '"preset": "gpt2"' "the preset replaces the config.json"
has "$T/out" '"layers": 12,' "GPT-2's 12 layers, not the config's 32"
expect 0 "--set model.params over a config.json" "$BIN" estimate "$hf" --set model.params=7B --format json
has "$T/out" '"has_shape": false' "a bare parameter count replaces the config.json"
expect 0 "--set model.hf_config over a preset" "$BIN" estimate "$ex" \
	--set model.hf_config=docs/examples/llama3-8b-config.json --format json
has "$T/out" '"total": 8030261248' "the config.json (Llama 3 8B, 8,030,261,248) replaces the preset"
expect 0 "--unset model.hf_config then a preset" "$BIN" estimate "$hf" --unset model.hf_config \
	--set model.preset=llama-2-7b --format json
has "$T/out" '"total": 6738415616' "--unset then --set: Llama 2 7B's 6,738,415,616"
expect 0 "--unset plan" "$BIN" estimate "$ex" --unset plan
has "$T/out" "no deadline set" "--unset plan removes the deadline"
expect 1 "--unset of an unknown key" "$BIN" estimate "$ex" --unset plan.deadlin
first_err "<--unset>:1:6: error: unknown key 'plan.deadlin'; did you mean 'plan.deadline'?" "--unset checks the key"
expect 2 "--unset KEY=VALUE" "$BIN" estimate --unset plan.deadline=3
expect 1 "--set KEY= (no value)" "$BIN" estimate --set plan.deadline=
first_err "<--set>:1:15: error: --set 'plan.deadline' has no value; expected KEY=VALUE (--unset plan.deadline removes it)" \
	"--set KEY= points at --unset"
mkdir "$T/u"
expect 0 "report with --unset" "$BIN" report "$ex" --unset plan.budget --format md -o "$T/u"
has "$T/u/default-7b.md" '`--unset plan.budget`' "the overrides line shows --unset"
has "$T/u/default-7b.md" 'default-7b.yaml --unset plan.budget`' "the regenerate line keeps --unset"

# ---- money in one line uses one style ---------------------------------------
# one_style FILE DESC: on each line holding money, the amounts are all whole
# units ($1,500), all with cents ($15.65) or all scaled ($1.20B).
one_style() {
	bad=$(grep -o '\$[0-9][0-9,.]*[BT]\{0,1\}' "$1" >/dev/null; awk '
		{ n = 0; kinds = ""
		  s = $0
		  while (match(s, /\$[0-9][0-9,.]*[BT]?/)) {
			a = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
			sub(/[.,]$/, "", a)
			k = a ~ /[BT]$/ ? "scaled" : a ~ /\.[0-9][0-9]$/ ? "cents" : "units"
			if (index(kinds, k) == 0) { kinds = kinds " " k; n++ }
		  }
		  if (n > 1 && $0 !~ /per GPU-hour/) print }' "$1")
	if [ -z "$bad" ]; then ok "$2"; else no "$2" "$bad"; fi
}
# GPT-2 on 10B tokens costs tens of dollars; the budget is $1,500.
expect 0 "estimate a run of tens of dollars with a budget of thousands" "$BIN" estimate "$T/gpt2.yaml" \
	--set plan.budget=1500
one_style "$T/out" "estimate: each line's money in one style"
grep -q '^Cost: .*\$[0-9]* expected with losses, P50 \$[0-9]*, P90 \$[0-9]*; within \$1,500 ' "$T/out" \
	&& ok "the cost line is in whole units, like its budget" || no "the cost line is in whole units, like its budget" "$(grep '^Cost' "$T/out")"
grep -q '^  cost  *\$[0-9]*\.[0-9][0-9]  ' "$T/out" \
	&& ok "the cost table keeps its cents (its own largest is under 1,000)" || no "the cost table keeps its cents" "$(grep '^  cost' "$T/out")"
mkdir "$T/m"
expect 0 "report the same run" "$BIN" report "$T/gpt2.yaml" --set plan.budget=1500 --format md,html -o "$T/m"
one_style "$T/m/gpt2.md" "report: each line and table row's money in one style"
expect 0 "estimate --sweep from tens to thousands of dollars" "$BIN" estimate "$T/gpt2.yaml" \
	--sweep training.tokens=10B,1T
awk '/^Sweep over/ { on = 1 } on' "$T/out" | tr -s ' ' | tr ' ' '\n' >"$T/sweep-cells"
one_style_all() {    # every amount of the file in one style
	tr '\n' ' ' <"$1" >"$1.line"; echo >>"$1.line"
	one_style "$1.line" "$2"
}
one_style_all "$T/sweep-cells" "estimate --sweep: the cost column in one style"
printf 'title: GPT-2 1T\nmodel: {preset: gpt2}\ntraining: {tokens: 1T}\nhardware: {count: 8}\n' >"$T/gpt2-1t.yaml"
mkdir "$T/mc"
expect 0 "compare tens against thousands of dollars" "$BIN" compare "$T/gpt2.yaml" "$T/gpt2-1t.yaml" \
	--format md -o "$T/mc"
one_style "$T/mc/gpt2-vs-gpt2-1t.md" "compare: each row's money in one style"
# a run of billions beside a budget of hundreds of millions
expect 0 "estimate a run of billions" "$BIN" estimate docs/examples/llama-3.1-405b.yaml \
	--set training.tokens=150T --set plan.budget=2000000000
one_style "$T/out" "estimate: billions and millions in one style"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
