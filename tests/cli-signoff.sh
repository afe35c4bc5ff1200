#!/bin/sh
# The sign-off hash covers what the numbers rest on (issue 10):
#   - the inputs SHA-256 is rebuilt here from docs/json.md's definition
#     with printf and sha256sum, and equals what the JSON, the Markdown,
#     the HTML and the PDF print;
#   - editing the config.json a scenario names changes the parameter count
#     and the digest (the scenario's own hash stays); the same bytes
#     elsewhere give the same digest; --set and --template enter it;
#   - no output shows where the user's files live (an absolute path is
#     published as its base name).
#   sh tests/cli-signoff.sh BIN
set -eu
BIN=${1:?usage: sh tests/cli-signoff.sh BIN}
case $BIN in */*) BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN") ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-signoff.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
SOURCE_DATE_EPOCH=1735689600
export SOURCE_DATE_EPOCH
fails=0
fail() { echo "cli-signoff: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else fail "$1: got '$2', expected '$3'"; fi; }
differ() { if [ "$2" != "$3" ]; then ok "$1"; else fail "$1: both '$2'"; fi; }

if ! command -v sha256sum >/dev/null || ! command -v python3 >/dev/null; then
	echo "cli-signoff: sha256sum or python3 missing: skipped"
	exit 0
fi
h() { sha256sum | cut -c1-64; }
# KEY of the JSON file $1, as a path into it: scenario.inputs_sha256
js() { python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$1" "$2"; }

# The digest as docs/json.md defines it, from the files themselves.
# digest VERSION SCENARIO [ROLE FILE]... -- [SET]... [--sweep SWEEP...]
digest() {
	v=$1 s=$2
	shift 2
	{
		printf 'trainbudget-inputs 1\nversion %s\n' "$v"
		printf 'scenario %s\n' "$(h <"$s")"
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			printf '%s %s\n' "$1" "$(h <"$2")"
			shift 2
		done
		[ $# -gt 0 ] && shift
		word=set
		for kv in "$@"; do
			if [ "$kv" = --sweep ]; then word=sweep; continue; fi
			printf '%s %s\n' "$word" "$(printf '%s' "$kv" | h)"
		done
	} | h
}

ver=$(js /dev/stdin version <<EOF
$("$BIN" estimate --format json)
EOF
)

mkdir -p "$T/a" "$T/b"
cp docs/examples/llama3-8b-hf.yaml "$T/a/run.yaml"
cp docs/examples/llama3-8b-config.json "$T/a/llama3-8b-config.json"

# ---- the definition, and every format printing it ----------------------
"$BIN" report "$T/a/run.yaml" -o "$T/out1" >/dev/null
want=$(digest "$ver" "$T/a/run.yaml" hf_config "$T/a/llama3-8b-config.json" --)
got=$(js "$T/out1/run.json" scenario.inputs_sha256)
check "JSON inputs_sha256 = SHA-256 of the documented lines (sha256sum)" "$got" "$want"
check "JSON inputs[0] is the scenario, by base name" \
	"$(js "$T/out1/run.json" scenario.inputs.0.role) $(js "$T/out1/run.json" scenario.inputs.0.path)" "scenario run.yaml"
check "JSON inputs[1] is the config, as the scenario names it, with its file's hash" \
	"$(js "$T/out1/run.json" scenario.inputs.1.path) $(js "$T/out1/run.json" scenario.inputs.1.sha256)" \
	"llama3-8b-config.json $(h <"$T/a/llama3-8b-config.json")"
check "JSON scenario.sha256 is still the scenario file's" \
	"$(js "$T/out1/run.json" scenario.sha256)" "$(h <"$T/a/run.yaml")"
for f in run.md run.html; do
	n=$(grep -o "$want" "$T/out1/$f" | wc -l)
	[ "$n" -ge 2 ] && ok "$f prints the digest (title block and inputs table: $n)" \
		|| fail "$f prints the digest $n times"
done
if command -v pdftotext >/dev/null; then
	pdftotext -layout "$T/out1/run.pdf" "$T/out1/run.txt" 2>/dev/null
	n=$(grep -o "$want" "$T/out1/run.txt" | wc -l)
	[ "$n" -ge 3 ] && ok "the PDF prints the digest (title, inputs table, sign-off page: $n)" \
		|| fail "the PDF prints the digest $n times"
	short=$(printf '%s' "$want" | cut -c1-12)
	grep -q "inputs $short" "$T/out1/run.txt" && ok "the PDF footer names the digest's first 12 digits" \
		|| fail "no 'inputs $short' footer"
fi
grep -qF 'Regenerate this document with `trainbudget report run.yaml`' "$T/out1/run.md" \
	&& ok "the command to regenerate names the scenario by base name" \
	|| fail "the command to regenerate: $(grep 'Regenerate this' "$T/out1/run.md")"
if grep -rl "$T" "$T/out1" >/dev/null 2>&1; then
	fail "an output shows the absolute path $T: $(grep -rl "$T" "$T/out1" | tr '\n' ' ')"
else
	ok "no output shows where the files live"
fi

# ---- editing the config.json -------------------------------------------
p1=$(js "$T/out1/run.json" parameters.total)
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 31/' "$T/a/llama3-8b-config.json" >"$T/a/c.tmp"
mv "$T/a/c.tmp" "$T/a/llama3-8b-config.json"
"$BIN" report "$T/a/run.yaml" -o "$T/out2" --format md,json >/dev/null
differ "the edited config changes the parameter count" "$(js "$T/out2/run.json" parameters.total)" "$p1"
d2=$(js "$T/out2/run.json" scenario.inputs_sha256)
differ "the edited config changes the inputs SHA-256" "$d2" "$want"
check "... to the digest of the new bytes" "$d2" \
	"$(digest "$ver" "$T/a/run.yaml" hf_config "$T/a/llama3-8b-config.json" --)"
grep -q "$d2" "$T/out2/run.md" && ok "... and the Markdown prints the new one" || fail "the Markdown does not print $d2"
check "the scenario's own hash does not move" "$(js "$T/out2/run.json" scenario.sha256)" \
	"$(js "$T/out1/run.json" scenario.sha256)"

# ---- same bytes, same digest, wherever they are --------------------------
cp docs/examples/llama3-8b-hf.yaml "$T/b/other-name.yaml"
cp docs/examples/llama3-8b-config.json "$T/b/llama3-8b-config.json"
(cd "$T/b" && "$BIN" estimate other-name.yaml --format json >"$T/b.json")
check "the same bytes in another folder, under another name: the same digest" \
	"$(js "$T/b.json" scenario.inputs_sha256)" "$want"
"$BIN" estimate docs/examples/llama3-8b-hf.yaml --format json >"$T/c.json"
check "and from the repository's own copy" "$(js "$T/c.json" scenario.inputs_sha256)" "$want"

# ---- overrides and templates -------------------------------------------
"$BIN" estimate "$T/b/other-name.yaml" --format json --set hardware.count=64 --set training.tokens=2T >"$T/s.json"
check "--set enters the digest, each by its hash, in order" "$(js "$T/s.json" scenario.inputs_sha256)" \
	"$(digest "$ver" "$T/b/other-name.yaml" hf_config "$T/b/llama3-8b-config.json" -- hardware.count=64 training.tokens=2T)"
check "JSON sets lists them" "$(js "$T/s.json" scenario.sets.1)" "training.tokens=2T"
printf '# {{scenario.title}}\n\nInputs {{scenario.inputs_sha256}}\n\n{{table inputs}}\n' >"$T/b/t.md"
"$BIN" report "$T/b/other-name.yaml" -o "$T/out3" --format md,json --template "$T/b/t.md" >/dev/null
d3=$(js "$T/out3/other-name.json" scenario.inputs_sha256)
check "--template enters the digest" "$d3" \
	"$(digest "$ver" "$T/b/other-name.yaml" hf_config "$T/b/llama3-8b-config.json" template "$T/b/t.md" --)"
check "the JSON beside a templated report lists the template by base name" \
	"$(js "$T/out3/other-name.json" scenario.inputs.2.role) $(js "$T/out3/other-name.json" scenario.inputs.2.path)" "template t.md"
grep -q "^Inputs $d3\$" "$T/out3/other-name.md" && ok "the templated Markdown prints the same digest as its JSON" \
	|| fail "the templated Markdown does not print $d3"
"$BIN" report "$T/b/other-name.yaml" -o "$T/out4" --format md >/dev/null
grep -q "$want" "$T/out4/other-name.md" && ok "without --template, the built-in template adds nothing" \
	|| fail "the default report does not print $want"

# ---- sweeps and comparisons -----------------------------------------------
# A sweep over model.hf_config prices other configs: each is an input.
cp "$T/b/llama3-8b-config.json" "$T/b/b.json"
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 30/' "$T/b/llama3-8b-config.json" >"$T/b/b.json"
sw='model.hf_config=llama3-8b-config.json,b.json'
# a swept config path is read like a --set one: from the working directory
(cd "$T/b" && "$BIN" estimate other-name.yaml --format json --sweep "$sw") >"$T/w.json"
check "--sweep over model.hf_config: every config read is an input, the sweep too" \
	"$(js "$T/w.json" scenario.inputs_sha256)" \
	"$(digest "$ver" "$T/b/other-name.yaml" hf_config "$T/b/llama3-8b-config.json" hf_config "$T/b/b.json" -- --sweep "$sw")"
"$BIN" estimate "$T/b/other-name.yaml" --format json --sweep hardware.count=64,128 >"$T/w2.json"
check "--sweep over the GPU count: the one config and the sweep" \
	"$(js "$T/w2.json" scenario.inputs_sha256)" \
	"$(digest "$ver" "$T/b/other-name.yaml" hf_config "$T/b/llama3-8b-config.json" -- --sweep hardware.count=64,128)"
(cd "$T/b" && "$BIN" report other-name.yaml -o "$T/out5" --format md,json --sweep "$sw") >/dev/null
grep -q "$(js "$T/w.json" scenario.inputs_sha256)" "$T/out5/other-name.md" \
	&& ok "a swept report prints the same digest as its JSON" || fail "the swept report's digest"
grep -q '| Model config (model.hf\\_config) | b.json |' "$T/out5/other-name.md" \
	&& ok "... and lists the second config" || fail "the swept report does not list b.json"
# Two configs of one file name in other folders, given as absolute paths:
# two inputs (not one that changed), and no absolute path published.
mkdir -p "$T/m/a" "$T/m/b"
cp "$T/b/llama3-8b-config.json" "$T/m/a/config.json"
cp "$T/b/b.json" "$T/m/b/config.json"
if "$BIN" report "$T/b/other-name.yaml" -o "$T/out7" --format md,json \
	--sweep "model.hf_config=$T/m/a/config.json,$T/m/b/config.json" >/dev/null 2>"$T/err7"; then
	n=$(python3 -c 'import json,sys; print(sum(1 for f in json.load(open(sys.argv[1]))["scenario"]["inputs"] if f["role"] == "hf_config"))' "$T/out7/other-name.json")
	check "two configs named config.json in two folders are two inputs" "$n" 3
	if grep -q "$T" "$T/out7/other-name.md" "$T/out7/other-name.json"; then
		fail "a sweep over absolute config paths published one"
	else
		ok "a sweep over absolute config paths publishes file names only"
	fi
else
	fail "a sweep over two config.json in two folders: $(cat "$T/err7")"
fi

# A comparison's hash is over each proposal's inputs digest.
cp "$T/b/other-name.yaml" "$T/b/p2.yaml"
printf '\n# another proposal\n' >>"$T/b/p2.yaml"
"$BIN" compare "$T/b/other-name.yaml" "$T/b/p2.yaml" -o "$T/cmp1" --format json >/dev/null
c1=$(js "$T/cmp1/other-name-vs-p2.json" comparison.sha256)
sed 's/"num_hidden_layers": 32/"num_hidden_layers": 31/' "$T/b/llama3-8b-config.json" >"$T/b/c.tmp"
mv "$T/b/c.tmp" "$T/b/llama3-8b-config.json"
"$BIN" compare "$T/b/other-name.yaml" "$T/b/p2.yaml" -o "$T/cmp2" --format json >/dev/null
differ "editing the config both proposals name changes the comparison's hash" \
	"$(js "$T/cmp2/other-name-vs-p2.json" comparison.sha256)" "$c1"
d_a=$(digest "$ver" "$T/b/other-name.yaml" hf_config "$T/b/llama3-8b-config.json" --)
d_b=$(digest "$ver" "$T/b/p2.yaml" hf_config "$T/b/llama3-8b-config.json" --)
check "... to the SHA-256 of the proposals' inputs digests" \
	"$(js "$T/cmp2/other-name-vs-p2.json" comparison.sha256)" "$(printf '%s\n%s\n' "$d_a" "$d_b" | h)"

# ---- a file's name is published by the rule --name obeys (issue 18) ----
# ESC, BEL, a C1 CSI (U+009B) and a bidi override (U+202E) in a scenario's
# file name: shown as '?' in every file report, plan and compare write and
# on the terminal, never raw; --name with the same bytes is refused.
esc=$(printf '\033'); bel=$(printf '\007'); csi=$(printf '\302\233'); rlo=$(printf '\342\200\256')
bad="run${esc}]0;PWNED${bel}${esc}[2J${csi}x${rlo}y"
mkdir -p "$T/esc"
cp tests/scenarios/min-7b.yaml "$T/esc/$bad.yaml"
cp docs/examples/default-7b.yaml "$T/esc/b.yaml"
(
	cd "$T/esc"
	"$BIN" report "$bad.yaml" -o r --format md,html,json
	"$BIN" plan "$bad.yaml" -o p --format md,html,json
	"$BIN" compare "$bad.yaml" b.yaml -o c --format md,html,json
	"$BIN" estimate "$bad.yaml"
) >"$T/esc.out" 2>&1 || fail "a scenario named with escapes: $(tail -3 "$T/esc.out")"
if cat "$T/esc.out" "$T"/esc/r/* "$T"/esc/p/* "$T"/esc/c/* | grep -q "$esc\|$bel\|$csi\|$rlo"; then
	fail "an escape in a scenario's file name reached an output"
else
	ok "an escape, a C1 control or a bidi override in a file's name is shown as '?' everywhere"
fi
[ -f "$T/esc/r/run?]0;PWNED??[2J?x?y.md" ] && ok "... and names the output files so" \
	|| fail "escaped output name: $(ls "$T/esc/r")"
for n in "x${esc}y" "x${csi}y" "x${rlo}y"; do
	if "$BIN" estimate "$T/esc/b.yaml" --name "$n" >/dev/null 2>&1; then
		fail "--name took a control or an override"
	fi
done
ok "--name refuses the same bytes"

if [ "$fails" -gt 0 ]; then
	echo "cli-signoff: $fails check(s) failed" >&2
	exit 1
fi
echo "cli-signoff: all checks passed"
