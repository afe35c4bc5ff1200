#!/bin/sh
# One Markdown table row per fuzz target from the logs run.sh left:
#   sh tests/fuzz/stats.sh build-fuzz scenario hfconfig units template report
set -eu
dir=$1
shift
echo "| Target | Time | Executions | Exec/s | Coverage (edges) | Features | Corpus | Result |"
echo "|---|---:|---:|---:|---:|---:|---:|---|"
for t in "$@"; do
	log=$dir/logs/$t.log
	[ -f "$log" ] || { echo "| $t | — | not run | | | | | |"; continue; }
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([^ ]*\).*/\1/p')
	secs=$(sed -n 's/^fuzz-run: .*seconds=\([0-9]*\).*/\1/p' "$log" | head -n 1)
	if grep -qE '^==[0-9]+==ERROR|^SUMMARY: (Address|Undefined|Leak)|deadly signal|Test unit written' "$log"; then
		res="**crash**: $(grep -m1 -E '^==[0-9]+==ERROR|runtime error|deadly signal' "$log" | cut -c1-100)"
	else
		res="no crash"
	fi
	echo "| $t | ${secs:-?} s | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $res |"
done
