#!/bin/sh
# Runs trainbudget under valgrind (memcheck): zero errors, zero leaks.
#   sh tests/valgrind.sh BIN
# Covers the paths a user takes: every example through `estimate` (text and
# JSON) and a full report (md, html, json, pdf), the built-in default, and
# the error paths, which free what they half-built: every malformed
# scenario in tests/scenarios/ and every malformed template in
# tests/templates/.  Criterion's workers hide ASan leak reports, so this is
# where leaks are caught.  Exits 1 on the first run with an error or leak,
# printing valgrind's report.
set -eu
bin=$1
command -v valgrind >/dev/null || { echo "valgrind missing (Debian: valgrind)" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
fail=0

# Runs BIN with the given arguments; the exit status of trainbudget itself
# does not matter here (error paths exit 1), only valgrind's verdict (99).
vg() {
	rc=0
	valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
		--errors-for-leak-kinds=definite,indirect,possible --track-origins=yes \
		--log-file="$out/vg.log" "$bin" "$@" >/dev/null 2>&1 </dev/null || rc=$?
	n=$((n + 1))
	if [ "$rc" -eq 99 ] || [ -s "$out/vg.log" ]; then
		echo "valgrind: FAIL: $bin $*" >&2
		cat "$out/vg.log" >&2
		fail=$((fail + 1))
	fi
}

examples=0
for f in docs/examples/*.yaml; do
	[ -e "$f" ] || continue
	examples=$((examples + 1))
	vg estimate "$f"
	vg estimate "$f" --format json
	vg report "$f" -o "$out/r" --format md,html,json,pdf
done
if [ "$examples" -eq 0 ]; then
	echo "valgrind: no docs/examples/*.yaml: nothing to check" >&2
	exit 1
fi
vg estimate
vg check docs/examples/*.yaml
# issue 22: a QLoRA run, a run in stages (each stage a whole scenario load
# and a risk draw), a staged proposal compared, a bill with every rule
vg report docs/examples/fine-tuning/qlora-70b-one-gpu.yaml -o "$out/ft" --format md,html,json,pdf
vg report docs/examples/stages/staged-deepseek-v3.yaml -o "$out/st" --format md,html,json,pdf
vg compare docs/examples/stages/staged-llama-3.1-405b.yaml docs/examples/llama-3.1-405b.yaml \
	-o "$out/cs" --format md,json
# issue 23: link annotations and signature fields in the PDF, and a plain one
vg report docs/examples/default-7b.yaml --template tests/templates/links.md -o "$out/lk" --format pdf
vg report docs/examples/default-7b.yaml --no-pdf-a -o "$out/np" --format pdf
# complex text: FriBidi, HarfBuzz and ICU opened (on helper threads),
# six scripts shaped, Thai broken by ICU's dictionary; the structure tree and object streams
vg report docs/examples/default-7b.yaml --template tests/templates/scripts.md -o "$out/sc" --format pdf
# a CID-keyed CFF face: hb-subset's subset, the embedded CMap
mkdir -p "$out/cff"
fonts=$(dirname "$bin")/fonts
cp "$fonts/DejaVuSans-Bold.ttf" "$fonts/DejaVuSansMono.ttf" "$out/cff/"
cp tests/fixtures/fonts/cff-cid.otf "$out/cff/DejaVuSans.ttf"
vg report docs/examples/default-7b.yaml --font-dir "$out/cff" -o "$out/cf" --format pdf
vg estimate docs/examples/default-7b.yaml --set "hardware.reservation=60 days" \
	--set plan.ablations=20% --set plan.storage.kept=3 --set hardware.node_power=10.2kW --format json
# every input the inputs SHA-256 covers at once: a config.json, a user
# template (read once in main, hashed, expanded) and overrides
vg report docs/examples/llama3-8b-hf.yaml --template templates/report.md \
	--set hardware.count=64 --set training.tokens=2T -o "$out/s" --format md,html,json,pdf
vg report docs/examples/llama3-8b-hf.yaml --template "$out/no-such-template.md" -o "$out/s"
vg estimate docs/examples/llama3-8b-hf.yaml --format json \
	--sweep model.hf_config=llama3-8b-config.json,../../tests/fixtures/hf/qwen3-8b.json
# part of the layers recomputed, across the cliff where they start to fit
vg estimate docs/examples/llama-3.1-8b-torchtitan.yaml --set training.checkpointing=full \
	--unset training.selective_policy --set training.micro_batch=4 --set training.global_batch=1024 \
	--sweep training.recompute_layers=4..32:4
# cuDNN's attention by release on the one die with a series (no example
# runs a GB300): every back end, an older release, fp8 attention, a search
vg report docs/examples/default-7b.yaml --set hardware.gpu=gb300 --set hardware.cudnn=9.13 \
	--set training.precision=fp8-mixed --set training.fp8_attention=true \
	--set parallelism.framework=megatron -o "$out/cu" --format md,html,json,pdf
vg plan docs/examples/default-7b.yaml --gpu gb300,b300,b200 --set hardware.cudnn=9.21 --format json
# the head in fp8 under MXFP8 (its GEMMs, casts and fp8 copy), in a
# pipeline and without
vg estimate docs/examples/default-7b.yaml --set hardware.gpu=b200 --set training.precision=fp8-mixed \
	--set training.fp8_recipe=mxfp8 --set training.fp8_head=true --set parallelism.framework=megatron \
	--sweep parallelism.pipeline=1,4
for f in tests/scenarios/bad-*.yaml; do
	[ -e "$f" ] || continue
	vg check "$f"
done
for t in tests/templates/bad-*.md; do
	[ -e "$t" ] || continue
	vg report docs/examples/default-7b.yaml --template "$t" -o "$out/bad"
done
# the builder test: a pilot's log read, the run calibrated, refused pilots
vg report docs/examples/pilot/llama3-8b-1024.yaml -o "$out/p" --format md,html,json,pdf \
	--calibrate docs/examples/pilot/llama3-8b-pilot.yaml
vg estimate docs/examples/pilot/llama3-8b-1024.yaml --calibrate docs/examples/default-7b.yaml
vg estimate docs/examples/pilot/llama3-8b-1024.yaml --calibrate docs/examples/pilot/llama3-8b-pilot.yaml \
	--sweep hardware.count=512,1024
vg check docs/examples/pilot/llama3-8b-pilot.yaml tests/scenarios/bad-measured-log-unit.yaml

# comparisons and sweeps, full and refused
vg compare docs/examples/compare/7b-2t.yaml docs/examples/compare/13b-1t.yaml \
	docs/examples/compare/13b-1t-128.yaml -o "$out/c" --format md,html,json,pdf \
	--sweep training.micro_batch=1,2 --sweep training.seq_len=2048,4096
vg report docs/examples/sweep/70b-128-h100.yaml -o "$out/s" --format md,html,json,pdf \
	--sweep hardware.count=512..4096:x2
vg estimate docs/examples/sweep/70b-128-h100.yaml --sweep training.micro_batch=1..8
# grids whose points do not fit draw crosses in every chart (a chart's
# primitives grow while it draws: issue 18 found a write through a moved array)
vg report tests/scenarios/min-7b.yaml -o "$out/g" --format md,html,json,pdf \
	--sweep hardware.count=8..128:8 --sweep training.micro_batch=1..16
vg compare tests/scenarios/min-7b.yaml docs/examples/default-7b.yaml -o "$out/gc" \
	--format md,html,json,pdf --sweep hardware.count=8..64:8 --sweep training.micro_batch=1..12
while IFS='|' read -r want_rc want args; do
	case $want_rc in '#'*|'') continue ;; esac
	# shellcheck disable=SC2086
	vg $args -o "$out/bad"
done <tests/compare/catalogue.txt
if [ "$fail" -ne 0 ]; then
	echo "valgrind: $fail of $n runs had memory errors or leaks" >&2
	exit 1
fi
echo "valgrind: $n runs ($examples examples: estimate, JSON, full report; comparisons and sweeps; every signed input at once; malformed scenarios, templates, comparisons and sweeps): 0 errors, 0 leaks"
