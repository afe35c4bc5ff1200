#!/bin/sh
# The command line, end to end: sh tests/cli.sh BIN (from the repo root).
# Prints a line per check and "N passed, M failed"; exits 1 on any failure.
# Then runs every tests/cli-*.sh other parts of the project add, with BIN.
set -u

BIN=${1:?usage: sh tests/cli.sh BIN}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
[ -x "$BIN" ] || { echo "cli.sh: $BIN is not an executable" >&2; exit 1; }

pass=0
fail=0
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-cli.XXXXXX")
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT INT TERM

ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() {
	fail=$((fail + 1))
	echo "FAIL - $1"
	shift
	for line in "$@"; do echo "       $line"; done
}

# run CMD...: stdout to $T/out, stderr to $T/err, status to $rc.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# expect_rc WANT DESC CMD...
# (sh has no locals: the e_ prefix keeps callers' variables intact.)
expect_rc() {
	e_want=$1 e_desc=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$e_want" ]; then
		ok "$e_desc (exit $e_want)"
	else
		no "$e_desc: exit $rc, expected $e_want" "stderr: $(head -n 3 "$T/err")"
	fi
}

# first_err_is TEXT DESC: the first stderr line of the last run.
first_err_is() {
	got=$(head -n 1 "$T/err")
	if [ "$got" = "$1" ]; then ok "$2"; else no "$2" "got:      $got" "expected: $1"; fi
}

empty_dir() { [ -z "$(ls -A "$1" 2>/dev/null)" ]; }

# json_seconds FILE: time.seconds[1] (most likely MFU) from the estimate JSON.
# time.seconds[1]: the first "seconds" after "time" (not a gpu_scan row's).
json_seconds() {
	tr -d ' \n\t' <"$1" | sed -n 's/.*"time":{"dtype":"[^"]*","peak_flops_per_gpu":[^,]*,"mfu":\[[^]]*\],"seconds":\[[^],]*,\([^],]*\),.*/\1/p'
}

version=$(sed -n 's/^#define TB_VERSION "\(.*\)"$/\1/p' include/trainbudget/version.h)
examples=$(ls docs/examples/*.yaml 2>/dev/null)
first_example=$(echo "$examples" | head -n 1)

# ---- version and help --------------------------------------------------
expect_rc 0 "--version" "$BIN" --version
[ "$(cat "$T/out")" = "trainbudget $version" ] && ok "--version prints 'trainbudget $version'" \
	|| no "--version prints 'trainbudget $version'" "got: $(cat "$T/out")"

expect_rc 0 "--help" "$BIN" --help
grep -q '^Usage: trainbudget <command>' "$T/out" && grep -q '^  3  output error' "$T/out" \
	&& ok "--help shows usage and the exit codes" || no "--help shows usage and the exit codes"
expect_rc 0 "help" "$BIN" help
for c in check estimate report gpus models; do
	expect_rc 0 "$c --help" "$BIN" $c --help
	grep -q "^Usage: trainbudget $c" "$T/out" && ok "$c --help prints its usage" \
		|| no "$c --help prints its usage" "got: $(head -n 1 "$T/out")"
	expect_rc 0 "help $c" "$BIN" help $c
	expect_rc 0 "$c -h" "$BIN" $c -h
done

# ---- usage errors: exit 2, a message, where to get help ----------------
W=$T/w
mkdir "$W"
expect_rc 2 "no command" "$BIN"
expect_rc 2 "unknown command" "$BIN" estimat
first_err_is "trainbudget: unknown command 'estimat'; did you mean 'estimate'?" "unknown command suggests"
expect_rc 2 "unknown option" "$BIN" estimate --formt json
first_err_is "trainbudget estimate: unknown option '--formt'; did you mean '--format'?" "unknown option suggests"
sed -n 2p "$T/err" | grep -q "^Try 'trainbudget estimate --help'.$" \
	&& ok "usage errors say where help is" || no "usage errors say where help is" "$(cat "$T/err")"
expect_rc 2 "unknown option --formt=json" "$BIN" estimate --formt=json
expect_rc 2 "option of another command" "$BIN" gpus --set a=1
expect_rc 2 "estimate --format xml" "$BIN" estimate --format xml
expect_rc 2 "report --format md,docx" "$BIN" report --format md,docx -o "$W"
expect_rc 2 "report --paper a3" "$BIN" report --paper a3 -o "$W"
expect_rc 2 "--set without =" "$BIN" estimate --set hardware.count
expect_rc 2 "--set with no value word" "$BIN" estimate --set
expect_rc 2 "check without FILE" "$BIN" check
expect_rc 2 "estimate with two files" "$BIN" estimate a.yaml b.yaml
expect_rc 2 "gpus with an argument" "$BIN" gpus extra
expect_rc 2 "stdin twice" "$BIN" check - -
expect_rc 2 "--version after a command" "$BIN" report --version
empty_dir "$W" && ok "usage errors write nothing" || no "usage errors write nothing" "$(ls -A "$W")"
SOURCE_DATE_EPOCH=yesterday expect_rc 2 "invalid SOURCE_DATE_EPOCH" "$BIN" report -o "$W"
first_err_is "trainbudget report: SOURCE_DATE_EPOCH='yesterday' is not a date; expected whole seconds since 1970-01-01 UTC, e.g. 1767225600" \
	"invalid SOURCE_DATE_EPOCH is explained"
empty_dir "$W" && ok "invalid SOURCE_DATE_EPOCH writes nothing" || no "invalid SOURCE_DATE_EPOCH writes nothing"

# ---- tables ------------------------------------------------------------
expect_rc 0 "gpus" "$BIN" gpus
grep -q '^h100-sxm ' "$T/out" && grep -q '^NAME ' "$T/out" \
	&& ok "gpus lists h100-sxm under a header" || no "gpus lists h100-sxm under a header"
# H100 SXM: 989.4 dense BF16 TFLOP/s (NVIDIA datasheet: 1,979 with sparsity).
grep '^h100-sxm ' "$T/out" | grep -q ' 989 ' && ok "gpus shows the H100's dense BF16 peak" \
	|| no "gpus shows the H100's dense BF16 peak" "$(grep '^h100-sxm ' "$T/out")"
# Transformer Engine 2's SM margins under megatron, as the report, the JSON
# and the step say them (16 on the forward row-parallel and data-gradient
# GEMMs under rs_dgrad), and one written over them
"$BIN" report docs/examples/llama-3.1-405b.yaml --unset hardware.mfu --set parallelism.zero=1 \
	--set parallelism.overlap_tp=true --set parallelism.framework=megatron \
	--set parallelism.overlap_tp_sms.proj_fprop=24 --format md,json -o "$T/ubsms" >/dev/null 2>&1
grep -qF "proj\\_fprop 24, fc2\\_fprop 16, qkv\\_dgrad 16, fc1\\_dgrad 16 (parallelism.overlap\\_tp\\_sms; the rest Transformer Engine 2's defaults under megatron)" "$T/ubsms/llama-3.1-405b.md" \
	&& tr -d ' \n' <"$T/ubsms/llama-3.1-405b.json" | grep -q '"overlap_tp_sms":{"qkv_fprop":0,"proj_fprop":24,"fc1_fprop":0,"fc2_fprop":16,"qkv_dgrad":16,"proj_dgrad":0,"fc1_dgrad":16,"fc2_dgrad":0,"qkv_wgrad":0,"fc1_wgrad":0}' \
	&& ok "the overlapped GEMMs' SMs in the report and the JSON" \
	|| no "the overlapped GEMMs' SMs in the report and the JSON" "$(grep -h 'Tensor-parallel overlap' "$T/ubsms/"*.md)"
# an inline card of 16 SMs under those defaults: no GEMM is left any, and
# the answer says why the layout as written cannot run
cat >"$T/sms16.yaml" <<'EOF2'
title: t
model:
  preset: llama-2-7b
training:
  tokens: 100B
hardware:
  gpu:
    name: "small <card> & co"
    memory: 80GB
    bf16: 900T
    bandwidth: 3TB
    sms: 16
  count: 64
parallelism:
  tensor: 4
  sequence_parallel: true
  framework: megatron
  overlap_tp: true
EOF2
"$BIN" estimate "$T/sms16.yaml" 2>&1 | tr '\n' ' ' | tr -s ' ' | grep -qF "cannot run as written (the step-time model cannot time it: an overlapped GEMM would give all of the card's SMs to its collective (parallelism.overlap_tp_sms))" \
	&& ok "a margin of the whole card: the written layout refused, with the reason" \
	|| no "a margin of the whole card: the written layout refused, with the reason" "$("$BIN" estimate "$T/sms16.yaml" 2>&1 | head -4)"
# the H100 SXM5's 132 SMs (NVIDIA's H100 architecture paper); none for GB200
grep '^h100-sxm ' "$T/out" | grep -q ' 132$' && grep '^gb200 ' "$T/out" | grep -q ' -$' \
	&& ok "gpus shows the SMs a source gives" || no "gpus shows the SMs a source gives" "$(grep '^h100-sxm \|^gb200 ' "$T/out")"
expect_rc 0 "models" "$BIN" models
# Official count from meta-llama/Llama-2-7b-hf.
grep '^llama-2-7b ' "$T/out" | grep -q '6,738,415,616' && ok "models shows Llama-2-7B's 6,738,415,616" \
	|| no "models shows Llama-2-7B's 6,738,415,616" "$(grep '^llama-2-7b' "$T/out")"

# ---- check ---------------------------------------------------------------
if [ -n "$examples" ]; then
	for f in $examples; do
		expect_rc 0 "check $f" "$BIN" check "$f"
	done
	# shellcheck disable=SC2086
	expect_rc 0 "check every example at once" "$BIN" check $examples
else
	no "docs/examples/*.yaml exist"
fi
expect_rc 1 "check a missing file" "$BIN" check "$T/nope.yaml"
first_err_is "$T/nope.yaml: error: cannot open: No such file or directory; expected a readable file" \
	"a missing file is named"
expect_rc 1 "check a directory" "$BIN" check "$T"

for f in tests/scenarios/bad-*.yaml; do
	[ -e "$f" ] || continue
	want=$(sed -n '1s/^# expect: //p' "$f")
	if [ -z "$want" ]; then
		no "$f starts with '# expect: <first diagnostic line>'"
		continue
	fi
	expect_rc 1 "check $f" "$BIN" check "$f"
	first_err_is "$want" "$f: first diagnostic"
	mkdir "$T/bad"
	expect_rc 1 "report $f" "$BIN" report "$f" -o "$T/bad"
	empty_dir "$T/bad" && ok "report $f writes nothing" || no "report $f writes nothing" "$(ls -A "$T/bad")"
	rm -rf "$T/bad"
done

# ---- estimate, --set, stdin --------------------------------------------
expect_rc 0 "estimate (built-in scenario)" "$BIN" estimate
# the built-in question and docs/examples/default-7b.yaml ask the same
# question and give the same answer (issue 19), in text and in JSON
if [ -f docs/examples/default-7b.yaml ]; then
	"$BIN" estimate >"$T/b1.txt" 2>&1
	"$BIN" estimate docs/examples/default-7b.yaml >"$T/b2.txt" 2>&1
	"$BIN" estimate --format json | sed -n '/"answer"/,/"written"/p' >"$T/b1.json" 2>&1
	"$BIN" estimate docs/examples/default-7b.yaml --format json | sed -n '/"answer"/,/"written"/p' >"$T/b2.json" 2>&1
	if cmp -s "$T/b1.txt" "$T/b2.txt" && [ -s "$T/b1.json" ] && cmp -s "$T/b1.json" "$T/b2.json"; then
		ok "the built-in question and default-7b.yaml give the same answer"
	else
		no "the built-in question and default-7b.yaml give the same answer" "$(diff "$T/b1.txt" "$T/b2.txt" | head -5)"
	fi
fi
[ -s "$T/out" ] && ok "estimate prints a summary" || no "estimate prints a summary"
expect_rc 0 "estimate --format json" "$BIN" estimate --format json
head -c 1 "$T/out" | grep -q '{' && ok "estimate --format json prints an object" \
	|| no "estimate --format json prints an object" "$(head -c 80 "$T/out")"

run "$BIN" estimate --format json --set hardware.count=64 --set hardware.mfu=0.35
s64=$(json_seconds "$T/out")
run "$BIN" estimate --format=json --set=hardware.count=128 --set hardware.mfu=0.35
s128=$(json_seconds "$T/out")
# Wall clock = FLOPs / (GPUs x peak x MFU): at one MFU, twice the GPUs, half the time.
if [ -n "$s64" ] && [ -n "$s128" ] &&
   awk -v a="$s64" -v b="$s128" 'BEGIN { r = a / b; exit !(b > 0 && r > 1.999999 && r < 2.000001) }'; then
	ok "--set hardware.count=128 halves time.seconds ($s64 -> $s128)"
else
	no "--set hardware.count=128 halves time.seconds" "64 GPUs: '$s64'  128 GPUs: '$s128'"
fi
# With the predicted MFU (the default) twice the GPUs is faster, but by
# less than 2x: the step-time model charges the scaling loss.  The layout
# is the answer's (the fastest that fits); at 64 and 128 GPUs it hides the
# data-parallel traffic entirely, at 512 and 1,024 (one or two
# micro-batches a replica) it cannot.
run "$BIN" estimate --format json --set hardware.count=512
p64=$(json_seconds "$T/out")
run "$BIN" estimate --format json --set hardware.count=1024
p128=$(json_seconds "$T/out")
if [ -n "$p64" ] && [ -n "$p128" ] &&
   awk -v a="$p64" -v b="$p128" 'BEGIN { r = a / b; exit !(b > 0 && r > 1 && r < 2) }'; then
	ok "predicted MFU: 1,024 GPUs faster than 512, by less than 2x ($p64 -> $p128)"
else
	no "predicted MFU: 1,024 GPUs faster than 512, by less than 2x" "512 GPUs: '$p64'  1,024 GPUs: '$p128'"
fi
# A power limit (hardware.power_limit) slows the predicted step by the
# clocks it leaves, says so, bounds the energy at the limit, and is echoed
# in the inputs; the op policy and the TP overlap are echoed too.
run "$BIN" estimate --format json --set hardware.count=64
full=$(json_seconds "$T/out")
run "$BIN" estimate --format json --set hardware.count=64 --set hardware.power_limit=500W \
	--set training.checkpointing=selective --set training.selective_policy=op --set parallelism.overlap_tp=true
capped=$(json_seconds "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$full" ] && [ -n "$capped" ] &&
   awk -v a="$full" -v b="$capped" 'BEGIN { exit !(b > 1.2 * a) }' &&
   grep -q '"power_limit_w": 500' "$T/out" && grep -q '"selective_policy": "op"' "$T/out" &&
   grep -q '"overlap_tp": true' "$T/out" && grep -q 'hardware.power_limit: 500 W of a 700 W TDP' "$T/out"; then
	ok "a 500 W limit slows the predicted run and says so; the new keys are echoed ($full -> $capped s)"
else
	no "hardware.power_limit, selective_policy, overlap_tp end to end" "rc $rc: '$full' -> '$capped'" "$(head -c 300 "$T/err")"
fi
# The attention kernel: Megatron-LM's on H100 is cuDNN's fused attention
# (Transformer Engine's choice), faster than FlashAttention-2, which a
# written flash2 brings back; the step's derivation names the kernel.
run "$BIN" estimate --format json --set hardware.count=64
fa2=$(json_seconds "$T/out")
run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework=megatron
cud=$(json_seconds "$T/out")
cud_named=$(grep -c "cuDNN's fused attention" "$T/out")
run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework=megatron \
	--set training.attention_kernel=flash2
back=$(json_seconds "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$fa2" ] && [ -n "$cud" ] && [ "$cud_named" -ge 1 ] &&
   awk -v a="$fa2" -v b="$cud" -v c="$back" 'BEGIN { exit !(b < a && c > b) }' &&
   grep -q '"attention_kernel": "flash2"' "$T/out" && grep -q 'FlashAttention-2 (training.attention_kernel)' "$T/out"; then
	ok "Megatron-LM on H100 prices cuDNN's attention, flash2 brings FlashAttention-2 back ($fa2, $cud, $back s)"
else
	no "training.attention_kernel end to end" "rc $rc: '$fa2' '$cud' '$back'" "$(head -c 300 "$T/err")"
fi
# Data-parallel buckets: a written bucket_size is echoed in the JSON's
# inputs, said in the report's assumptions and compared; at NeMo's 200 MB
# of bf16 (104,857,600 weights) over 1,024 replicas the step's
# collectives (T_dp, the derivation's) take longer than one of the whole
# gradient.
t_dp() { tr -d ' \n\t' <"$1" | sed -n 's/.*"symbol":"T_dp","meaning":"[^"]*","value":\([^,]*\),.*/\1/p'; }
m="--set parallelism.framework=megatron --set parallelism.zero=1 --set hardware.count=1024"
m="$m --set parallelism.tensor=1 --set parallelism.pipeline=1"
run "$BIN" estimate --format json $m --set parallelism.bucket_size=1000000000000
one=$(t_dp "$T/out")
run "$BIN" estimate --format json $m --set parallelism.bucket_size=104857600
nemo=$(t_dp "$T/out")
echoed=$(grep -c '"bucket_size": 104857600' "$T/out")
{ cat docs/examples/default-7b.yaml; printf 'parallelism:\n  framework: megatron\n  zero: 1\n'; } >"$T/b0.yaml"
{ cat "$T/b0.yaml"; printf '  bucket_size: 104857600\n'; } >"$T/b1.yaml"
run "$BIN" compare "$T/b0.yaml" "$T/b1.yaml" --format md -o "$T/bc"
if [ "$rc" -eq 0 ] && [ "$echoed" -ge 1 ] && [ -n "$one" ] && [ -n "$nemo" ] &&
   awk -v a="$one" -v b="$nemo" 'BEGIN { exit !(b > a) }' &&
   grep -q "Data-parallel bucket.*104,857,600 weights (parallelism.bucket" "$T/bc"/*.md &&
   grep -q "max(40M, 1M x the data-parallel ranks)" "$T/bc"/*.md; then
	ok "parallelism.bucket_size echoed, compared and priced ($one s whole, $nemo s in buckets)"
else
	no "parallelism.bucket_size end to end" "rc $rc: '$one' '$nemo' echoed $echoed" "$(head -c 300 "$T/err")"
fi
rm -rf "$T/bc" "$T/b0.yaml" "$T/b1.yaml"
# A step captured whole in a CUDA graph (parallelism.cuda_graph:
# full_iteration): the data-parallel collectives are priced unhidden in
# their buckets, so the step grows; the JSON echoes the key, the report
# says why, compare names it; a value not in the list is a located error.
m="--set parallelism.framework=megatron --set parallelism.zero=1 --set hardware.count=64"
m="$m --set parallelism.tensor=1 --set parallelism.pipeline=1"
run "$BIN" estimate --format json $m
hid=$(json_seconds "$T/out")
run "$BIN" estimate --format json $m --set parallelism.cuda_graph=full_iteration
full=$(json_seconds "$T/out")
echoed=$(grep -c '"cuda_graph": "full_iteration"' "$T/out")
run "$BIN" report --format md -o "$T/cg" --name cg $m --set parallelism.cuda_graph=full_iteration
said=$(grep -c 'captured whole in a CUDA graph (parallelism.cuda\\_graph: full\\_iteration)' "$T/cg/cg.md")
{ cat docs/examples/default-7b.yaml; printf 'parallelism:\n  framework: megatron\n  zero: 1\n'; } >"$T/g0.yaml"
{ cat "$T/g0.yaml"; printf '  cuda_graph: full_iteration\n'; } >"$T/g1.yaml"
run "$BIN" compare "$T/g0.yaml" "$T/g1.yaml" --format md -o "$T/gc"
compared=$(grep -c 'CUDA graphs (parallelism.cuda\\_graph) | none | full\\_iteration' "$T/gc"/*.md)
run "$BIN" estimate --set parallelism.cuda_graph=full
if [ "$rc" -ne 0 ] && grep -q "^<--set>:1:24: error: unknown parallelism.cuda_graph 'full'; expected one of none, layers, full_iteration" "$T/err" &&
   [ -n "$hid" ] && [ -n "$full" ] && awk -v a="$hid" -v b="$full" 'BEGIN { exit !(b > a) }' &&
   [ "$echoed" -ge 1 ] && [ "$said" -ge 1 ] && [ "$compared" -ge 1 ]; then
	ok "parallelism.cuda_graph: full_iteration prices the reduction unhidden ($hid s hidden, $full s)"
else
	no "parallelism.cuda_graph end to end" "rc $rc: '$hid' '$full' echoed $echoed said $said compared $compared" "$(head -c 300 "$T/err")"
fi
rm -rf "$T/cg" "$T/gc" "$T/g0.yaml" "$T/g1.yaml"
# Dropless routing (training.moe_routing): the busiest expert rank's share
# sets the step, so a measured factor above the fitted one slows it and
# balanced routing speeds it; the JSON echoes the routing and the factor
# priced, the report says which, compare names it.
x="docs/examples/mixtral-8x7b.yaml --unset hardware.mfu --set parallelism.expert=8 --set parallelism.tensor=1"
x="$x --set parallelism.pipeline=1 --set training.micro_batch=1"
run "$BIN" estimate --format json $x --set training.moe_routing=balanced
bal=$(json_seconds "$T/out")
run "$BIN" estimate --format json $x
fit=$(json_seconds "$T/out")
# the factor priced is the fitted constant as make validate documents it
# (the "In perf.c" column of docs/validation.md), not a number of this test
want=$(awk -F'|' '/^\| `moe_dropless_load`/ { gsub(/ /, "", $4); print $4; exit }' docs/validation.md)
fitload=$(grep -c "\"expert_load\": ${want:-none}[,}]" "$T/out")
run "$BIN" estimate --format json $x --set training.moe_load_factor=1.6
meas=$(json_seconds "$T/out")
echoed=$(grep -c '"moe_load_factor": 1.6' "$T/out")
run "$BIN" report --format md -o "$T/mr" --name mr $x --set training.moe_load_factor=1.6
said=$(grep -c 'receives 1.6 times the mean' "$T/mr/mr.md")
run "$BIN" report --format md -o "$T/mr" --name cap $x --set parallelism.expert=2 --set training.moe_load_factor=3
capped=$(grep -c "every routed token, 2 times the mean's.*3 is more than 2 ranks can hold" "$T/mr/cap.md")
sed 's/^training:$/training:\n  moe_routing: balanced/' docs/examples/mixtral-8x7b.yaml >"$T/r1.yaml"
run "$BIN" compare docs/examples/mixtral-8x7b.yaml "$T/r1.yaml" --format md -o "$T/rc"
compared=$(grep -c "Experts' routing (training.moe\\\\_routing) | dropless | balanced" "$T/rc"/*.md)
if [ -n "$bal" ] && [ -n "$fit" ] && [ -n "$meas" ] &&
   awk -v a="$bal" -v b="$fit" -v c="$meas" 'BEGIN { exit !(a < b && b < c) }' &&
   [ "$fitload" -ge 1 ] && [ "$echoed" -ge 1 ] && [ "$said" -ge 1 ] && [ "$compared" -ge 1 ] &&
   [ "$capped" -ge 1 ]; then
	ok "training.moe_routing: the busiest expert rank sets the step ($bal s balanced, $fit s fitted, $meas s at 1.6)"
else
	no "training.moe_routing end to end" "'$bal' '$fit' '$meas' load $fitload echoed $echoed said $said compared $compared capped $capped" "$(head -c 300 "$T/err")"
fi
rm -rf "$T/mr" "$T/rc" "$T/r1.yaml"
# fp8 scaling: torchao's per-tensor recipe (the default under FSDP) casts
# activations in one pass and gathers the weights in fp8; per row it casts
# twice, recasts the weights every micro-batch and gathers them in bf16,
# so its step is longer; the JSON and the report say which was priced.
run "$BIN" estimate --format json --set hardware.count=64 --set training.precision=fp8-mixed \
	--set parallelism.framework=fsdp --set parallelism.zero=3
tw=$(json_seconds "$T/out")
tw_named=$(grep -c '"recipe": "tensorwise"' "$T/out")
tw_gather=$(grep -c '"weights_gathered_in_fp8": true' "$T/out")
run "$BIN" report --format md -o "$T/fp8" --name fp8 --set hardware.count=64 --set training.precision=fp8-mixed \
	--set parallelism.framework=fsdp --set parallelism.zero=3 --set training.fp8_recipe=rowwise
rw_report=$(grep -c "| fp8 scaling | rowwise: one scale a row\|c_8: within it, HBM bytes of each fp8 cast.* = 6 B" "$T/fp8/fp8.md" 2>/dev/null)
run "$BIN" estimate --format json --set hardware.count=64 --set training.precision=fp8-mixed \
	--set parallelism.framework=fsdp --set parallelism.zero=3 --set training.fp8_recipe=rowwise
rw=$(json_seconds "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$tw" ] && [ -n "$rw" ] && [ "$tw_named" -ge 1 ] && [ "$tw_gather" -ge 1 ] &&
   [ "${rw_report:-0}" -ge 2 ] && awk -v a="$tw" -v b="$rw" 'BEGIN { exit !(b > a) }' &&
   grep -q '"fp8_recipe": "rowwise"' "$T/out" && grep -q '"recipe": "rowwise"' "$T/out" &&
   grep -q '"weights_gathered_in_fp8": false' "$T/out"; then
	ok "fp8 per row costs more than per tensor under FSDP and says so ($tw -> $rw s)"
else
	no "training.fp8_recipe end to end" "rc $rc: '$tw' '$rw' named $tw_named gather $tw_gather report ${rw_report:-}" "$(head -c 300 "$T/err")"
fi
# Block scaling on Hopper: Transformer Engine's (blockwise) runs cuBLAS's
# block-scaled GEMMs, 1.222 times the per-tensor ones (its GEMM profiling
# guide); DeepSeek's own kernels (deepseek) the same tiles at the per-tensor
# rate, so a shorter step with the same casts.
run "$BIN" estimate --format json --set hardware.count=64 --set training.precision=fp8-mixed \
	--set parallelism.framework=megatron --set training.fp8_recipe=blockwise
blk=$(json_seconds "$T/out")
blk_json=$(grep -c '"gemm_time_ratio": 1.22\|"cast_bandwidth_fraction": 0.4434' "$T/out")
run "$BIN" estimate --format json --set hardware.count=64 --set training.precision=fp8-mixed \
	--set parallelism.framework=megatron --set training.fp8_recipe=deepseek
dsk=$(json_seconds "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$blk" ] && [ -n "$dsk" ] && awk -v a="$dsk" -v b="$blk" 'BEGIN { exit !(b > a) }' &&
   [ "${blk_json:-0}" -ge 2 ] && grep -q '"gemm_time_ratio": 1$' "$T/out" &&
   grep -q '"fp8_recipe": "deepseek"' "$T/out" && grep -q '"recipe": "deepseek"' "$T/out"; then
	ok "block scaling on Hopper: Transformer Engine's GEMMs slower than DeepSeek's ($dsk -> $blk s)"
else
	no "training.fp8_recipe deepseek against blockwise" "rc $rc: '$blk' '$dsk' json ${blk_json:-}" "$(head -c 300 "$T/err")"
fi
# fp4-mixed on a B200: its linear layers on the 9 PF fp4 peak in NVFP4, a
# shorter step than fp8's; the JSON, the report's settings and the
# warnings say what was priced and that its fp4 kernel fraction is B300's
# measured one, copied; on an H100 (no fp4 peak) it is a located error.
run "$BIN" estimate --format json --set hardware.gpu=b200 --set hardware.count=64 \
	--set training.precision=fp8-mixed --set parallelism.framework=megatron
f8=$(json_seconds "$T/out")
run "$BIN" report --format md -o "$T/fp4" --name fp4 --set hardware.gpu=b200 --set hardware.count=64 \
	--set training.precision=fp4-mixed --set parallelism.framework=megatron
f4_report=$(grep -c "| fp4 scaling | nvfp4: E2M1 in blocks of 16\|c_4: within it, HBM bytes of each fp4 cast.* = 5.12 B\|fp4-mixed: the step-time model prices the fp4 matmuls on b200 at 44% of the fp4 peak (copied from another card's measured fp4 kernel, which gpus.c names)" "$T/fp4/fp4.md" 2>/dev/null)
run "$BIN" estimate --format json --set hardware.gpu=b200 --set hardware.count=64 \
	--set training.precision=fp4-mixed --set parallelism.framework=megatron
f4=$(json_seconds "$T/out")
if [ "$rc" -eq 0 ] && [ -n "$f8" ] && [ -n "$f4" ] && [ "${f4_report:-0}" -ge 3 ] &&
   awk -v a="$f8" -v b="$f4" 'BEGIN { exit !(b < a) }' &&
   grep -q '"format": "nvfp4"' "$T/out" && grep -q '"bytes_per_element": 0.5625' "$T/out" &&
   grep -q '"matmul_fraction": 0.437' "$T/out" &&
   grep -q '"matmul_fraction_basis": "copied from another card.s measured fp4 kernel' "$T/out" &&
   grep -q '"fp4": 9e+15\|"fp4": 9000000000000000' "$T/out"; then
	ok "fp4-mixed on B200 prices NVFP4 on the fp4 peak and says so ($f8 -> $f4 s)"
else
	no "training.precision fp4-mixed end to end" "rc $rc: '$f8' '$f4' report ${f4_report:-}" "$(head -c 300 "$T/err")"
fi
# an inline card with an fp4 peak takes fp4-mixed, priced at its 16-bit
# fraction (nothing measured on it), MXFP4 (not a Blackwell part)
cat >"$T/fp4-inline.yaml" <<'YAML'
title: fp4 on an inline card
model: {preset: llama-3-8b}
hardware:
  gpu: {name: my-accel, memory: 80GB, bf16: 1000T, fp8: 2000T, fp4: 4000T, bandwidth: 4TB}
  count: 8
  node: {gpus: 8, nvlink: 400GB, network: 50GB}
training: {tokens: 10B, precision: fp4-mixed}
YAML
run "$BIN" estimate "$T/fp4-inline.yaml" --format json
if [ "$rc" -eq 0 ] && grep -q '"format": "mxfp4"' "$T/out" && grep -q '"fp4": 4e+15\|"fp4": 4000000000000000' "$T/out" &&
   ! grep -Eqi ': -?(nan|inf)' "$T/out"; then
	ok "an inline card's fp4 peak prices fp4-mixed (MXFP4)"
else
	no "fp4-mixed on an inline card" "rc $rc" "$(head -c 300 "$T/err")"
fi
# a vanishing fp4 peak: an absurd step, still finite and written as a
# power of ten, no NaN or infinity anywhere
sed 's/fp4: 4000T/fp4: 1e-30/' "$T/fp4-inline.yaml" >"$T/fp4-tiny.yaml"
run "$BIN" estimate "$T/fp4-tiny.yaml"
tiny_txt=$(grep -c 'step .* × 10' "$T/out")
run "$BIN" estimate "$T/fp4-tiny.yaml" --format json
if [ "$rc" -eq 0 ] && [ "${tiny_txt:-0}" -ge 1 ] && ! grep -Eqi ': -?(nan|inf)' "$T/out"; then
	ok "a vanishing fp4 peak gives a finite step, as a power of ten"
else
	no "fp4-mixed on a 1e-30 FLOP/s card" "rc $rc text $tiny_txt" "$(head -c 300 "$T/err")"
fi
run "$BIN" estimate --set training.precision=fp4-mixed
if [ "$rc" -ne 0 ] && grep -q "error: GPU 'h100-sxm' has no fp4 peak for training.precision fp4-mixed; expected a precision the GPU supports" "$T/err"; then
	ok "fp4-mixed on a card without fp4 is a located error"
else
	no "fp4-mixed without an fp4 peak" "rc $rc" "$(head -c 300 "$T/err")"
fi
# A setting that only adds work: the step with it is longer than without
# (64 H100s of the default scenario under framework $2), the JSON echoes
# it ($5) and the report's assumptions name it (a row starting $4).
# $1 says what it is, $3 is the KEY=VALUE.
lever_lengthens() {
	run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework="$2"
	without=$(json_seconds "$T/out")
	rm -rf "$T/lever"
	run "$BIN" report --format md -o "$T/lever" --name lever --set hardware.count=64 \
		--set parallelism.framework="$2" --set "$3"
	rows=$(grep -cF "$4" "$T/lever/lever.md" 2>/dev/null)
	run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework="$2" --set "$3"
	with=$(json_seconds "$T/out")
	if [ "$rc" -eq 0 ] && [ -n "$without" ] && [ -n "$with" ] && [ "${rows:-0}" -ge 1 ] &&
	   awk -v a="$without" -v b="$with" 'BEGIN { exit !(b > a) }' && grep -qF "$5" "$T/out"; then
		ok "$1: a longer step, echoed and named ($without -> $with s)"
	else
		no "$3 end to end" "rc $rc: '$without' '$with' report ${rows:-}" "$(head -c 300 "$T/err")"
	fi
}
# Unfused gradient accumulation (Megatron-LM's --no-gradient-accumulation-
# fusion): a pass over every trained weight each micro-batch.
lever_lengthens "unfused gradient accumulation" megatron training.grad_accumulation_fusion=false \
	"| Gradient accumulation | unfused: " '"grad_accumulation_fusion": false'
# PyTorch eager's memory-bound kernels (training.kernels: eager): more
# bytes a layer.
lever_lengthens "eager kernels" fsdp training.kernels=eager \
	"| Memory-bound kernels | PyTorch eager: " '"kernels": "eager"'
# PyTorch's eager cross-entropy (training.cross_entropy: eager): three
# fp32 buffers a logit where a fused loss keeps one, echoed in the JSON,
# said in the report's assumptions, and the default under FSDP with eager
# kernels.
json_logits() {
	tr -d ' \n\t' <"$1" | sed -n 's/.*"logits_bytes":\([0-9.e+]*\).*/\1/p'
}
run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework=fsdp
l_fused=$(json_logits "$T/out")
grep -q '"cross_entropy": "fused"' "$T/out"; f_echo=$?
run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework=fsdp --set training.cross_entropy=eager
l_eager=$(json_logits "$T/out")
grep -q '"cross_entropy": "eager"' "$T/out"; e_echo=$?
run "$BIN" estimate --format json --set hardware.count=64 --set parallelism.framework=fsdp --set training.kernels=eager
l_default=$(json_logits "$T/out")
rm -rf "$T/ce"
run "$BIN" report --format md -o "$T/ce" --name ce --set hardware.count=64 --set training.cross_entropy=eager
if [ "$rc" -eq 0 ] && [ "$f_echo" -eq 0 ] && [ "$e_echo" -eq 0 ] && [ -n "$l_fused" ] &&
   awk -v a="$l_fused" -v b="$l_eager" -v c="$l_default" 'BEGIN { exit !(b == 3 * a && c == b) }' &&
   grep -qF "| Cross-entropy | PyTorch eager over fp32 logits" "$T/ce/ce.md"; then
	ok "eager cross-entropy: 3 x the fused loss's buffers ($l_fused -> $l_eager B), echoed, said, the default under FSDP with eager kernels"
else
	no "training.cross_entropy end to end" "rc $rc: '$l_fused' '$l_eager' '$l_default' echo $f_echo $e_echo" "$(head -c 300 "$T/err")"
fi
# FSDP under a pipeline holds the stage's weights gathered and its
# gradients unsharded (tb_fsdp_holds_stage): flagged in the JSON, said in
# the report's assumptions; one stage, or another framework, shards them.
FP="--set hardware.count=64 --set parallelism.framework=fsdp --set parallelism.zero=3 --set parallelism.pipeline=2"
# shellcheck disable=SC2086
run "$BIN" estimate --format json $FP
grep -q '"weights_whole": true' "$T/out" && grep -q '"gradients_whole": true' "$T/out"; h_pp=$?
# shellcheck disable=SC2086
run "$BIN" estimate --format json $FP --set parallelism.pipeline=1
grep -q '"weights_whole": false' "$T/out" && grep -q '"gradients_whole": false' "$T/out"; h_one=$?
rm -rf "$T/held"
# shellcheck disable=SC2086
run "$BIN" report --format md -o "$T/held" --name held $FP
if [ "$rc" -eq 0 ] && [ "$h_pp" -eq 0 ] && [ "$h_one" -eq 0 ] &&
   grep -qF "under the pipeline FSDP holds the stage's weights gathered" "$T/held/held.md" &&
   grep -qF "FSDP under a pipeline schedule (torch.distributed.pipelining)" "$T/held/held.md"; then
	ok "FSDP under a pipeline: the stage's weights and gradients held whole, flagged in the JSON, said in the report"
else
	no "FSDP under a pipeline end to end" "rc $rc: pp $h_pp one $h_one" "$(head -c 300 "$T/err")"
fi
# Full recomputation of part of the layers: echoed in the JSON, said in
# the report's assumptions and memory table, and between none and full
# in time (the 8B example on its own layout, one stage of 32 layers).
E8=docs/examples/llama-3.1-8b-torchtitan.yaml
run "$BIN" estimate "$E8" --format json --set training.checkpointing=full --unset training.selective_policy
t_full=$(json_seconds "$T/out")
run "$BIN" estimate "$E8" --format json --set training.checkpointing=full --unset training.selective_policy --set training.recompute_layers=16
t_part=$(json_seconds "$T/out")
part_rc=$rc
grep -q '"recompute_layers": 16' "$T/out"; echoed=$?
run "$BIN" report "$E8" --format md -o "$T/rl" --set training.checkpointing=full --unset training.selective_policy --set training.recompute_layers=16
if [ "$part_rc" -eq 0 ] && [ "$echoed" -eq 0 ] && [ "$rc" -eq 0 ] && [ -n "$t_full" ] && [ -n "$t_part" ] &&
   awk -v a="$t_full" -v b="$t_part" 'BEGIN { exit !(b < a) }' &&
   grep -q 'full, the first 16 layers of each pipeline chunk' "$T/rl/llama-3.1-8b-torchtitan.md" &&
   grep -q 'full, 16 layers a chunk (this run)' "$T/rl/llama-3.1-8b-torchtitan.md"; then
	ok "training.recompute_layers: echoed, said in the report, faster than full ($t_full -> $t_part s)"
else
	no "training.recompute_layers end to end" "rc $part_rc/$rc echoed $echoed: '$t_full' -> '$t_part'" "$(head -c 300 "$T/err")"
fi
# The fewest layers that fit: the same card's answer two ways, a sweep's
# cliff and the memory table's row, at micro-batch 4.
run "$BIN" estimate "$E8" --set training.checkpointing=full --unset training.selective_policy \
	--set training.micro_batch=4 --set training.global_batch=1024 --sweep training.recompute_layers=16..24:1
sweep_rc=$rc
grep -q 'fits from recompute_layers 21' "$T/out"; cliff=$?
run "$BIN" report "$E8" --format md -o "$T/fl" --set training.checkpointing=full --unset training.selective_policy \
	--set training.micro_batch=4 --set training.global_batch=1024
if [ "$sweep_rc" -eq 0 ] && [ "$cliff" -eq 0 ] && [ "$rc" -eq 0 ] &&
   grep -q '| full, 21 layers a chunk (the fewest that fit) |' "$T/fl/llama-3.1-8b-torchtitan.md" &&
   grep -q '| recompute the fewest layers that fit |' "$T/fl/llama-3.1-8b-torchtitan.md"; then
	ok "the fewest recomputed layers that fit: the sweep's cliff and the report's row and lever agree (21)"
else
	no "fewest recomputed layers" "rc $sweep_rc/$rc cliff $cliff" "$(grep -i 'fits from\|fewest' "$T/out" | head -3)"
fi
# Selective checkpointing under flash attention is none again; under FSDP
# the warning names the op policy (what torchtitan's selective is).
run "$BIN" estimate --format json --set training.checkpointing=selective --set parallelism.framework=fsdp
if [ "$rc" -eq 0 ] && grep -q "PyTorch's selective checkpointing (torchtitan's) is training.selective_policy: op" "$T/out"; then
	run "$BIN" estimate --format json --set training.checkpointing=selective
	if [ "$rc" -eq 0 ] && grep -q 'those of none' "$T/out" && ! grep -q 'selective_policy: op' "$T/out"; then
		ok "selective under flash attention: the warning names the op policy under FSDP only"
	else
		no "the selective warning without FSDP" "rc $rc" "$(grep -i selective "$T/out" | head -3)"
	fi
else
	no "the selective warning under FSDP names the op policy" "rc $rc" "$(grep -i -A2 selective "$T/out" | head -6)"
fi
run "$BIN" estimate --format json --set training.tokens=200B --set training.tokens=100B --set hardware.count=512
s_last=$(json_seconds "$T/out")
[ -n "$s_last" ] && [ "$s_last" = "$p64" ] && ok "repeated --set: the last one wins" \
	|| no "repeated --set: the last one wins" "'$s_last' vs '$p64'"
expect_rc 1 "--set of an unknown key" "$BIN" estimate --set hardware.cuont=8
# One answer (issue 19): with the MFU predicted, the time is the run's steps
# times the predicted step, on every example (DeepSeek-V3's 94 s steps once
# gave 48 days for 235k steps: 256 days), and answer.step_s is that step.
if command -v python3 >/dev/null; then
	for f in docs/examples/*.yaml; do
		"$BIN" estimate "$f" --unset hardware.mfu --format json >"$T/st.json" 2>/dev/null || continue
		if python3 - "$T/st.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p, t, a, tr = d['perf'], d['time'], d['answer'], d['inputs']['training']
if not a['runs']:
    sys.exit(0)
steps = tr['tokens'] / (tr['global_batch'] * tr['seq_len'])
ok = abs(t['seconds'][1] - steps * p['step_s']) <= 1e-9 * t['seconds'][1]
ok = ok and abs(a['step_s'] - p['step_s']) <= 1e-9 * p['step_s']
sys.exit(0 if ok else 1)
PY
		then ok "time.seconds = steps x perf.step_s = steps x answer.step_s: $(basename "$f")"
		else no "time.seconds = steps x perf.step_s: $(basename "$f")" "$(head -c 200 "$T/st.json")"; fi
	done
fi

if [ -n "$first_example" ]; then
	expect_rc 0 "check - reads standard input" sh -c '"$1" check - <"$2"' sh "$BIN" "$first_example"
	# Only the output name and the scenario's path differ: stdin has no
	# file stem, and its path is "-" (paths are not in the inputs digest).
	run "$BIN" estimate "$first_example" --format json
	grep -v -e '"name":' -e '"path":' "$T/out" >"$T/from-file.json"
	run sh -c '"$1" estimate - --format json <"$2"' sh "$BIN" "$first_example"
	grep -v -e '"name":' -e '"path":' "$T/out" >"$T/from-stdin.json"
	if [ "$rc" -eq 0 ] && [ -s "$T/from-file.json" ] && cmp -s "$T/from-stdin.json" "$T/from-file.json"; then
		ok "estimate - gives the same JSON as the file"
	else
		no "estimate - gives the same JSON as the file" "exit $rc"
	fi
	rm -f "$T/out" "$T/err" "$T/from-file.json" "$T/from-stdin.json"
fi
expect_rc 1 "check - with bad YAML on stdin" sh -c 'printf "title: [unclosed\n" | "$1" check -' sh "$BIN"

# ---- report: outputs, atomicity, exit 3 --------------------------------
rm -f "$T/out" "$T/err"
mkdir "$T/r"
SOURCE_DATE_EPOCH=1767225600 expect_rc 0 "report (built-in) -o DIR" "$BIN" report -o "$T/r"
n_written=$(wc -l <"$T/out")
n_files=$(ls -A "$T/r" | wc -l)
[ "$n_written" -ge 4 ] && [ "$n_written" -eq "$n_files" ] \
	&& ok "report prints each path it wrote ($n_written)" \
	|| no "report prints each path it wrote" "printed $n_written, found $n_files"
for ext in md html pdf json; do
	ls "$T/r"/*."$ext" >/dev/null 2>&1 && ok "report wrote a .$ext" || no "report wrote a .$ext"
done
ls -A "$T/r" | grep -q '^\.' && no "report leaves no temporary files" "$(ls -A "$T/r")" \
	|| ok "report leaves no temporary files"
mkdir "$T/r2"
SOURCE_DATE_EPOCH=1767225600 run "$BIN" report -o "$T/r2"
if [ "$rc" -eq 0 ] && diff -r "$T/r" "$T/r2" >/dev/null; then
	ok "two report runs give identical bytes"
else
	no "two report runs give identical bytes" "$(diff -rq "$T/r" "$T/r2" | head -n 3)"
fi
if command -v sha256sum >/dev/null; then
	(cd "$T/r" && sha256sum -c --quiet default.sha256) >/dev/null 2>&1 \
		&& [ "$(wc -l <"$T/r/default.sha256")" -eq $((n_files - 1)) ] \
		&& ok "default.sha256 lists every other file, and sha256sum -c agrees" \
		|| no "default.sha256 lists every other file, and sha256sum -c agrees" "$(cat "$T/r/default.sha256")"
fi
# A regenerated file keeps its mode; a new one follows the umask.
chmod 600 "$T/r/default.pdf"
(umask 027 && SOURCE_DATE_EPOCH=1767225600 "$BIN" report -o "$T/r" >/dev/null 2>&1)
(umask 027 && "$BIN" report --format json -o "$T/r3" >/dev/null 2>&1)
[ "$(stat -c %a "$T/r/default.pdf")" = 600 ] && [ "$(stat -c %a "$T/r/default.md")" = 644 ] \
	&& [ "$(stat -c %a "$T/r3/default.json")" = 640 ] \
	&& ok "a regenerated file keeps its mode (600, 644); a new one follows the umask (640)" \
	|| no "regenerated files keep their mode, new ones follow the umask" \
		"$(stat -c '%a %n' "$T/r/default.pdf" "$T/r/default.md" "$T/r3/default.json")"
# A rerun with fewer charts and formats leaves no file of the previous run.
printf '# {{scenario.title}}\n\n{{chart zero}}\n' >"$T/one-chart.md"
run "$BIN" report --format md --template "$T/one-chart.md" -o "$T/r"
[ "$rc" -eq 0 ] && [ "$(ls -A "$T/r" | tr '\n' ' ')" = "default-zero.svg default.md default.sha256 " ] \
	&& ok "a rerun with one chart and one format removes the previous run's other files" \
	|| no "a rerun with one chart and one format removes the previous run's other files" "$(ls -A "$T/r")"
rm -rf "$T/r" "$T/r2" "$T/r3" "$T/one-chart.md"

mkdir "$T/j"
expect_rc 0 "report --format json" "$BIN" report --format json -o "$T/j"
[ "$(ls -A "$T/j" | tr '\n' ' ')" = "default.json default.sha256 " ] \
	&& ok "--format json writes only the JSON and its manifest" \
	|| no "--format json writes only the JSON and its manifest" "$(ls -A "$T/j")"
rm -rf "$T/j"

: >"$T/plain-file"
expect_rc 3 "report -o into a regular file" "$BIN" report -o "$T/plain-file"
grep -q 'is not a directory' "$T/err" && ok "exit 3 says why" || no "exit 3 says why" "$(cat "$T/err")"
expect_rc 3 "report -o under a regular file" "$BIN" report -o "$T/plain-file/sub"
rm -f "$T/plain-file"

# A template error is invalid input: exit 1, located, nothing written.
printf '# Title\n\nSome {{no.such.figure}} text.\n' >"$T/bad-template.md"
mkdir "$T/bt"
expect_rc 1 "report --template with an unknown placeholder" "$BIN" report --template "$T/bad-template.md" -o "$T/bt"
head -n 1 "$T/err" | grep -q "^$T/bad-template.md:3:6: error: " && ok "the template error points at 3:6" \
	|| no "the template error points at 3:6" "$(head -n 1 "$T/err")"
empty_dir "$T/bt" && ok "a template error writes nothing" || no "a template error writes nothing" "$(ls -A "$T/bt")"
rm -rf "$T/bt" "$T/bad-template.md"

# A PDF that cannot be drawn (no fonts) is an output error, and the other
# formats of the run are not written either.
expect_rc 3 "report without fonts" "$BIN" report --format md,pdf --font-dir "$T/no-fonts" -o "$T/nf"
[ ! -e "$T/nf" ] || empty_dir "$T/nf" && ok "a failed PDF leaves no file" \
	|| no "a failed PDF leaves no file" "$(ls -A "$T/nf")"
rm -rf "$T/nf"

# A directory squatting on one target makes the last rename fail: the files
# already renamed must go too, so nothing from the run is left.
mkdir "$T/sq"
run "$BIN" report --format md,json -o "$T/sq" --set hardware.count=64
names=$(sed 's|.*/||' "$T/out")
rm -rf "$T/sq"/*
last=$(echo "$names" | grep '\.json$')
if [ -n "$last" ]; then
	mkdir "$T/sq/$last"
	expect_rc 3 "report with a directory in the way of $last" "$BIN" report --format md,json -o "$T/sq"
	[ "$(ls -A "$T/sq")" = "$last" ] && ok "a failed write leaves no output file" \
		|| no "a failed write leaves no output file" "$(ls -A "$T/sq")"
else
	no "report --format md,json names a .json file" "$(cat "$T/out" "$T/err")"
fi
rm -rf "$T/sq"

# Writing to a full device fails with exit 3, not silently.
if [ -w /dev/full ]; then
	run sh -c '"$1" gpus >/dev/full' sh "$BIN"
	[ "$rc" -eq 3 ] && ok "a failed write to standard output exits 3" \
		|| no "a failed write to standard output exits 3" "exit $rc"
fi

# "Expected" names what it is taken over: DeepSeek-V3's MFU band [18%, 22%,
# 30%] leans high, so its expected days are the runs' mean over the band,
# not the run at 22%; a stage's line gives its middle MFU beside them
"$BIN" estimate docs/examples/deepseek-v3.yaml >"$T/exp" 2>&1
"$BIN" estimate docs/examples/stages/staged-deepseek-v3.yaml >"$T/exps" 2>&1
if grep -q "days expected over MFU 18%-30% with failures and checkpoints" "$T/exp" \
	&& grep -q "^  1\. pre-training: .* expected; MFU 22%$" "$T/exps" \
	&& grep -q "days expected over 3 stages with failures" "$T/exps"; then
	ok "expected figures say the MFU band (or stages) they are taken over"
else
	no "expected figures say their basis" "$(grep -E 'Meets|pre-training' "$T/exp" "$T/exps")"
fi

# ---- the other parts' CLI checks --------------------------------------
for s in tests/cli-*.sh; do
	[ -e "$s" ] || continue
	echo "---- $s"
	if sh "$s" "$BIN"; then ok "$s"; else no "$s"; fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
