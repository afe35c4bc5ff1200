#!/bin/sh
# Runs each libFuzzer target for SECONDS on a corpus seeded from the repo.
#   sh tests/fuzz/run.sh DIR SECONDS TARGET...
# Corpora persist in DIR/corpus/<target> (so campaigns add up); crashes go
# to DIR/crashes/<target>/ (a crash kept for good goes to
# tests/fuzz/regress/<target>/, replayed before each run); each run's log to DIR/logs/<target>.log, whose
# last lines (executions, coverage, features) are printed.  Exits 1 when a
# target found a crash, so `make fuzz` fails.
set -eu
dir=$1
secs=$2
shift 2
status=0

# Seeds: what the repo already holds of each input language.
seed() {
	t=$1
	c=$dir/corpus/$t
	mkdir -p "$c"
	case $t in
	scenario) set -- docs/examples/*.yaml docs/examples/*/*.yaml tests/scenarios/*.yaml tests/fixtures/*.yaml ;;
	hfconfig) set -- docs/examples/*.json tests/scenarios/*.json tests/fixtures/*.json tests/fixtures/hf/*.json tests/fuzz/seeds/hfconfig/* ;;
	template|report) set -- templates/*.md tests/templates/*.md tests/fuzz/seeds/template/* ;;
	units)    set -- tests/fuzz/seeds/units/* ;;
	pdf)      set -- tests/fuzz/seeds/pdf/* templates/*.md ;;
	manifest) set -- tests/fuzz/seeds/manifest/* ;;
	sweep)    set -- tests/fuzz/seeds/sweep/* ;;
	fonts)    set -- tests/fuzz/seeds/fonts/* ;;
	shape)    set -- tests/fuzz/seeds/shape/* tests/fuzz/seeds/pdf/* ;;
	pilot)    set -- tests/fixtures/pilot/* docs/examples/pilot/*.log tests/scenarios/*.log ;;
	trace)    set -- tests/fixtures/trace/h200-fsdp.json tests/scenarios/bad-measured-trace-json.json ;;
	esac
	for f in "$@"; do
		[ -f "$f" ] || continue
		cp "$f" "$c/seed-$(echo "$f" | tr '/' '_')"
	done
}

maxlen() {
	case $1 in
	units) echo 64 ;;
	sweep) echo 256 ;;
	scenario|hfconfig|pilot|trace) echo 8192 ;;
	template|report) echo 16384 ;;
	fonts) echo 65536 ;;
	*) echo 4096 ;;
	esac
}

for t in "$@"; do
	seed "$t"
	mkdir -p "$dir/crashes/$t" "$dir/logs"
	dict=""
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	# Every input that once crashed a target is replayed first.
	reg=$(ls tests/fuzz/regress/"$t"/* 2>/dev/null || true)
	if [ -n "$reg" ]; then
		# shellcheck disable=SC2086
		if "$dir/fuzz_$t" $reg >"$dir/logs/$t.regress.log" 2>&1; then
			echo "fuzz: $t: $(echo "$reg" | wc -l) regression inputs replayed, none fails"
		else
			status=1
			echo "fuzz: $t: a REGRESSION input fails again: see $dir/logs/$t.regress.log" >&2
		fi
	fi
	echo "fuzz: $t for ${secs}s (corpus $dir/corpus/$t)"
	echo "fuzz-run: target=$t seconds=$secs max_len=$(maxlen "$t") date=$(date -u +%Y-%m-%dT%H:%MZ)" >"$dir/logs/$t.log"
	# shellcheck disable=SC2086
	if ! nice "$dir/fuzz_$t" -max_total_time="$secs" -max_len="$(maxlen "$t")" \
		-timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$dir/crashes/$t/" $dict \
		"$dir/corpus/$t" >>"$dir/logs/$t.log" 2>&1; then
		status=1
		echo "fuzz: $t FOUND A CRASH: see $dir/logs/$t.log and $dir/crashes/$t/" >&2
	fi
	grep -E '^(#[0-9]+.*(DONE|pulse)|stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added)' \
		"$dir/logs/$t.log" | tail -n 4
	echo "fuzz: $t corpus now $(find "$dir/corpus/$t" -type f | wc -l) files"
done
exit $status
