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

# ---- options -------------------------------------------------------------
expect 2 "report --out" "$BIN" report --out "$T/o"
first_err "trainbudget report: unknown option '--out'; did you mean '-o' (--output)?" "--out suggests -o"
expect 2 "report --outdir" "$BIN" report --outdir "$T/o"
first_err "trainbudget report: unknown option '--outdir'; did you mean '-o' (--output)?" "--outdir suggests -o"
expect 2 "report --outdir=DIR" "$BIN" report --outdir="$T/o"
first_err "trainbudget report: unknown option '--outdir'; did you mean '-o' (--output)?" "--outdir=DIR suggests -o"
expect 2 "estimate --out" "$BIN" estimate --out x
first_err "trainbudget estimate: unknown option '--out'; '--output' is an option of 'report', not of this command" \
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
first_err "trainbudget report: --name '' is not a file name; expected a name without '/', not starting with '.', such as llama-70b-run" \
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

# ---- --set switches the kind of model; --unset -----------------------------
hf=docs/examples/llama3-8b-hf.yaml
expect 0 "--set model.preset over a config.json" "$BIN" estimate "$hf" --set model.preset=gpt2 --format json
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
