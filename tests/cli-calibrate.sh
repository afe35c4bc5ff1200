#!/bin/sh
# The builder test from the command line (issue 21): a pilot's training
# log read, the full run calibrated on it, the JSON contract, the inputs
# digest over every pilot file, and the refusals.  Run by tests/cli.sh as
# `sh tests/cli-calibrate.sh BIN`.
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-cal.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

P=docs/examples/pilot/llama3-8b-pilot.yaml
F=docs/examples/pilot/llama3-8b-1024.yaml

# ---- the worked example: 32 H200 calibrate 1,024 ---------------------------
"$BIN" estimate "$F" --calibrate "$P" >"$T/text" 2>"$T/err"
rc=$?
# the pilot's measured 1.50 s is the file's; the model's own step is not
# pinned, only that the efficiency is the ratio of the two and that the run
# before calibration is the model's step at the same layout
pl=$(grep "^  pilot     $P: 32 x h200 measured 1\.50 s a step, the model " "$T/text")
mod=$(printf '%s\n' "$pl" | sed -n 's/.*the model \([0-9.]*\) s: compute efficiency x\([0-9.]*\)$/\1 \2/p')
if [ $rc -eq 0 ] && grep -q '^  step      1\.50 s calibrated, ' "$T/text" && [ -n "$mod" ] &&
	echo "$mod" | awk '{ d = $2 - $1 / 1.50; exit !(d < 0.015 && d > -0.015) }' &&
	grep -q "^            this run: ${mod%% *} s a step before calibration (MFU [0-9]*%), 1\.50 s after (MFU 32%)" "$T/text"; then
	ok "estimate --calibrate: the pilot's line and the run before and after"
else
	no "estimate --calibrate" "rc $rc" "$(grep -A3 '^  step' "$T/text")" "$(cat "$T/err")"
fi

"$BIN" estimate "$F" --calibrate "$P" --format json >"$T/a.json" 2>"$T/err"
"$BIN" estimate "$F" --calibrate "$P" --format json >"$T/b.json" 2>>"$T/err"
if cmp -s "$T/a.json" "$T/b.json"; then ok "the same inputs give the same bytes"
else no "two runs differ" "$(diff "$T/a.json" "$T/b.json" | head -5)"; fi

if python3 - "$T/a.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["calibration"]
p = c["pilots"][0]
for k in ("path", "sha256", "kind", "step_s", "step_s_spread", "peak_memory_bytes", "terms_s"):
    assert k in p, k
assert p["kind"] == "torchtitan_log" and p["gpus"] == 32
# 64 sequences of 8,192 tokens at the log's median tokens/s on 32 GPUs, the
# published 10,938 give or take the log's scatter
assert abs(p["step_s"] / (64 * 8192 / (10938 * 32)) - 1) < 0.005, p["step_s"]
assert p["step_s_spread"][0] < p["step_s"] < p["step_s_spread"][1]
assert set(c["constants"]) == {"matmul_ceiling", "nvlink_fraction", "network_fraction"}
m = c["constants"]["matmul_ceiling"]
assert m["before"] == 0.734 and abs(m["after"] - m["before"] * p["factor"]) < 1e-12
t = c["terms"][0]
assert {"term", "predicted_s", "measured_s", "error"} <= set(t)
fr = c["full_run"]
assert fr["step_s_after"] == d["perf"]["step_s"] and fr["step_s_before"] < fr["step_s_after"]
assert len(fr["band_before"]) == 2 and len(fr["band_after"]) == 2
assert d["perf"]["source"] == "calibrated" and d["answer"]["mfu_source"] == "calibrated"
roles = [i["role"] for i in d["scenario"]["inputs"]]
assert roles == ["scenario", "measured_log", "pilot"], roles
EOF
then ok "JSON: calibration.pilots, constants, terms, full_run; perf.source calibrated; the pilot and its log in the inputs"
else no "JSON contract" "$(python3 -c "import json;print(json.load(open('$T/a.json'))['calibration'])" 2>&1 | head -c 600)"; fi

# the digest covers the pilot's log: a changed log, a changed digest
mkdir "$T/p"
cp docs/examples/pilot/* "$T/p/"
"$BIN" estimate "$T/p/llama3-8b-1024.yaml" --calibrate "$T/p/llama3-8b-pilot.yaml" --format json >"$T/c.json" 2>"$T/err"
sed 's/tps: 10,9\([0-9][0-9]\)/tps: 10,8\1/' docs/examples/pilot/llama3-8b-pilot.log >"$T/p/llama3-8b-pilot.log"
"$BIN" estimate "$T/p/llama3-8b-1024.yaml" --calibrate "$T/p/llama3-8b-pilot.yaml" --format json >"$T/d.json" 2>>"$T/err"
h1=$(python3 -c "import json;print(json.load(open('$T/c.json'))['scenario']['inputs_sha256'])")
h2=$(python3 -c "import json;print(json.load(open('$T/d.json'))['scenario']['inputs_sha256'])")
s1=$(python3 -c "import json;print(json.load(open('$T/c.json'))['perf']['step_s'])")
s2=$(python3 -c "import json;print(json.load(open('$T/d.json'))['perf']['step_s'])")
if [ -n "$h1" ] && [ "$h1" != "$h2" ] && [ "$s1" != "$s2" ]; then ok "a changed pilot log changes the step and the inputs digest"
else no "digest over the pilot log" "$h1 / $h2" "$s1 / $s2" "$(cat "$T/err")"; fi

# a report carries it too
"$BIN" report "$F" --calibrate "$P" --format md,json -o "$T/r" >/dev/null 2>"$T/err"
if [ -s "$T/r/llama3-8b-1024.json" ] &&
	python3 -c "import json,sys;d=json.load(open('$T/r/llama3-8b-1024.json'));sys.exit(0 if d['calibration']['pilots'][0]['kind']=='torchtitan_log' else 1)"; then
	ok "report --calibrate: the JSON beside the documents has the calibration"
else no "report --calibrate" "$(cat "$T/err")"; fi

# the search ranks on the pilot's efficiencies, and says so
"$BIN" plan "$F" --calibrate "$P" >"$T/plan" 2>"$T/err"
if tr '\n' ' ' <"$T/plan" | grep -q "Step times on h200 use the efficiencies 1 pilot run measured (--calibrate): compute x${mod#* }"; then
	ok "plan --calibrate: the search ranks calibrated steps and says so"
else no "plan --calibrate" "$(head -8 "$T/plan")" "$(cat "$T/err")"; fi

# a pilot with a profiler trace: each term fixed on its own, line by line
mkdir -p "$T/tr"
cp docs/examples/pilot/* tests/fixtures/trace/h200-fsdp.json "$T/tr/"
sed 's|  log: llama3-8b-pilot.log|  log: llama3-8b-pilot.log\n  trace: h200-fsdp.json|' "$P" >"$T/tr/llama3-8b-pilot.yaml"
"$BIN" estimate "$F" --calibrate "$T/tr/llama3-8b-pilot.yaml" --format json >"$T/t.json" 2>"$T/err"
if python3 - "$T/t.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["calibration"]
p = c["pilots"][0]
assert p["trace"] == "h200-fsdp.json" and len(p["trace_sha256"]) == 64
assert abs(p["terms_s"]["gemm"] - 0.95) < 1e-9 and abs(p["terms_s"]["reduce_scatter"] - 0.15) < 1e-9
terms = [t["term"] for t in c["terms"]]
assert terms == ["compute", "communication", "optimizer", "step"], terms
assert abs(c["terms"][0]["measured_s"] - 1.25) < 1e-9
assert c["constants"]["network_fraction"]["factor"] != 1 and c["constants"]["matmul_ceiling"]["factor"] != 1
roles = [i["role"] for i in d["scenario"]["inputs"]]
assert roles == ["scenario", "measured_log", "pilot", "measured_trace"], roles
EOF
then ok "a pilot's trace fixes compute and the network apart, reported term by term and hashed"
else no "trace calibration" "$(cat "$T/err")"; fi

# ---- refusals ----------------------------------------------------------------
"$BIN" estimate "$F" --calibrate docs/examples/default-7b.yaml >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'docs/examples/default-7b.yaml:1:1: error: cannot calibrate on this pilot: the pilot has no measured step' "$T/err"; then
	ok "a pilot without a measured step is refused, by name"
else no "pilot without measurement" "rc $rc" "$(cat "$T/err")"; fi

sed 's/gpu: h200/gpu: h100-sxm/' "$P" >"$T/p/h100-pilot.yaml"
"$BIN" estimate "$F" --calibrate "$T/p/h100-pilot.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'the pilot ran on h100-sxm and the scenario prices h200; expected the same card' "$T/err"; then
	ok "a pilot on another card is refused"
else no "pilot on another card" "rc $rc" "$(cat "$T/err")"; fi

"$BIN" estimate "$F" --calibrate "$T/nope.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'nope.yaml' "$T/err"; then ok "a missing pilot file is an input error"
else no "missing pilot" "rc $rc" "$(cat "$T/err")"; fi

"$BIN" estimate "$F" --calibrate >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 64 ] || [ $rc -eq 2 ]; then ok "--calibrate without a file is refused ($rc)"
else no "--calibrate without a file" "rc $rc" "$(cat "$T/err")"; fi

"$BIN" compare "$F" "$F" --calibrate "$P" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -ne 0 ] && grep -q -- '--calibrate' "$T/err"; then ok "compare does not take --calibrate"
else no "compare --calibrate" "rc $rc" "$(cat "$T/err")"; fi

# special files as a pilot or its log: named at once, nothing read forever
mkfifo "$T/fifo.yaml" "$T/tr/fifo.log"
timeout 10 "$BIN" estimate "$F" --calibrate "$T/fifo.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q 'fifo.yaml' "$T/err"; then ok "a FIFO as the pilot is refused at once"
else no "FIFO pilot" "rc $rc" "$(cat "$T/err")"; fi
sed 's|  log: llama3-8b-pilot.log|  log: fifo.log|' "$P" >"$T/tr/fifo-pilot.yaml"
timeout 10 "$BIN" estimate "$F" --calibrate "$T/tr/fifo-pilot.yaml" >/dev/null 2>"$T/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "cannot read measured.log 'fifo.log' (nothing to read" "$T/err"; then
	ok "a FIFO as the pilot's measured.log is refused at its key"
else no "FIFO log" "rc $rc" "$(cat "$T/err")"; fi

echo "cli-calibrate: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
