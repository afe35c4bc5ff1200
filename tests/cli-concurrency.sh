#!/bin/sh
# Output sets under concurrency and interruption:
#   sh tests/cli-concurrency.sh BIN        (run by tests/cli.sh)
# Eight variants of one scenario NAME ("plan"), each with its own numbers
# (1-5 also with their own formats and charts; 6-8 all Markdown, HTML and
# JSON, no PDF, so they render in about the same time), have a reference
# set: what the variant writes alone.
#   1. Rounds of runs started together into one directory (every third
#      round a directory none of them has created yet): three rounds in
#      four, two variants that write the same file names (a mix shows as
#      files of different runs), every fourth the five of different shapes
#      (a mix shows as stale files).  Every run exits 0, and the directory
#      then holds exactly one reference set, byte for byte, and no hidden
#      file.
#   2. Runs killed by SIGINT or SIGTERM after a random delay: the directory
#      holds the previous set or the new one, whole, and no hidden file;
#      the previous one when the signal came before the renames began, the
#      new one when after.
#   3. Standard output closed, a broken pipe, a full device: exit 3 and the
#      previous set.
# BIN's directory holding tests/fault.so (make check-cli builds it), the
# output stage's system calls are slowed (LD_PRELOAD) so that runs overlap
# in it and signals land in it, and the lock-file and no-hard-link
# fallbacks are run too.  Sizes: TB_ROUNDS (default 12), TB_KILLS (default
# 32), TB_SEED (default: the process id; printed, to replay a failure).
set -u
BIN=${1:?usage: sh tests/cli-concurrency.sh BIN}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
ROUNDS=${TB_ROUNDS:-12}
KILLS=${TB_KILLS:-32}
SEED=${TB_SEED:-$$}
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-conc.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
SOURCE_DATE_EPOCH=1767225600
export SOURCE_DATE_EPOCH
fails=0
fail() { echo "cli-concurrency: FAIL - $1" >&2; fails=$((fails + 1)); }
ok() { echo "ok   - $1"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
t_start=$(now_ms)

# The fault library, and what a sanitizer build needs to accept it.
FAULT=$(dirname "$BIN")/tests/fault.so
if [ -f "$FAULT" ]; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
	export ASAN_OPTIONS
	DELAY_US=4000
else
	echo "cli-concurrency: $FAULT not built: no slowed output stage, no fallbacks"
	FAULT=
	DELAY_US=0
fi
# The fault library's environment, for env(1).
FENV=
[ -n "$FAULT" ] && FENV="LD_PRELOAD=$FAULT TB_FAULT_DELAY_US=$DELAY_US"
# A background job of a non-interactive shell starts with SIGINT ignored
# (and trainbudget rightly leaves it so); give the runs it back.
if env --default-signal=INT true 2>/dev/null; then
	SIGS="INT TERM"
	SIGENV="--default-signal=INT"
else
	SIGS="TERM"
	SIGENV=
fi

# ---- the variants and their reference sets ------------------------------
E=docs/examples/default-7b.yaml
printf '# {{scenario.title}}\n\n{{chart zero}}\n' >"$T/one-chart.md"
printf '# {{scenario.title}}\n\n{{chart plans}}\n\n{{chart zero}}\n' >"$T/two-charts.md"
NV=5
for v in 1 2 3 4 5 6 7 8; do
	mkdir -p "$T/s$v"
	# A different GPU count each: other numbers, another scenario hash.
	sed "s/^  count: 64\$/  count: $((4 << v))/" "$E" >"$T/s$v/plan.yaml"
done
args() {
	case $1 in
	1) echo "--format md,html,pdf,json" ;;
	6|7|8) echo "--format md,html,json" ;;
	2) echo "--format md,json --template $T/one-chart.md" ;;
	3) echo "--format md,html" ;;
	4) echo "--format json" ;;
	5) echo "--format pdf,md --template $T/two-charts.md" ;;
	esac
}
# run_variant V DIR [ENV...]: one run of variant V into DIR, stdout to null.
run_variant() {
	r_v=$1 r_dir=$2
	shift 2
	# shellcheck disable=SC2046,SC2086
	env $FENV "$@" "$BIN" report "$T/s$r_v/plan.yaml" -o "$r_dir" $(args "$r_v") >/dev/null 2>>"$T/stderr"
}
longest=0
mkdir -p "$T/ref"
for v in 1 2 3 4 5 6 7 8; do
	run_variant "$v" "$T/ref/$v" || fail "variant $v alone: $(cat "$T/stderr")"
	# timed as a rerun over its own files, which keeps the previous
	# versions as a replacing run does
	t0=$(now_ms)
	if ! run_variant "$v" "$T/ref/$v" || [ ! -s "$T/ref/$v/plan.sha256" ]; then
		fail "variant $v again: $(cat "$T/stderr")"
	fi
	t=$(($(now_ms) - t0))
	[ "$t" -gt "$longest" ] && longest=$t
	eval "dur_$v=$t"
	ls -A "$T/ref/$v" >"$T/ref/$v.list"
done
# a different number in each variant's JSON, so the sets differ in content
[ "$(cat "$T"/ref/*/plan.json | grep -c '"count"')" -ge 3 ] || fail "variant JSONs carry a count"
ok "eight reference sets (the longest run $longest ms)"

# which DIR: the variant whose set DIR holds exactly, "hidden" if a hidden
# file other than the fallback's lock file is there, else "mix".
which_set() {
	if ls -A "$1" | grep '^\.' | grep -qv '^\.trainbudget\.lock$'; then
		echo hidden
		return
	fi
	ls -A "$1" | grep -v '^\.trainbudget\.lock$' >"$T/got.list"
	for w in 1 2 3 4 5 6 7 8; do
		cmp -s "$T/got.list" "$T/ref/$w.list" || continue
		same=1
		while read -r f; do
			cmp -s "$1/$f" "$T/ref/$w/$f" || { same=0; break; }
		done <"$T/got.list"
		[ "$same" = 1 ] && { echo "$w"; return; }
	done
	echo mix
}

# ---- 1. concurrent runs --------------------------------------------------
runs=0 bad_rc=0 bad_set=0 winners=""
round() {    # round R DIR [ENV...]
	r_r=$1 r_d=$2
	shift 2
	pids=""
	r_vs="6 7" r_slow=
	# two runs rendering in the same time, their output stages stretched so
	# that they overlap: without the lock about one round in four mixes
	[ -n "$FAULT" ] && r_slow=TB_FAULT_DELAY_US=$((DELAY_US * 3))
	[ $((r_r % 4)) = 0 ] && r_vs="1 2 3 4 5" r_slow=
	for v in $r_vs; do
		# shellcheck disable=SC2086
		run_variant "$v" "$r_d" "$@" $r_slow &
		pids="$pids $!"
	done
	for p in $pids; do
		wait "$p" || bad_rc=$((bad_rc + 1))
		runs=$((runs + 1))
	done
	w=$(which_set "$r_d")
	case $w in
	[1-8]) winners="$winners $w" ;;
	*) bad_set=$((bad_set + 1))
	   fail "round $r_r: the directory holds a $w: $(ls -A "$r_d" | tr '\n' ' ')" ;;
	esac
}
: >"$T/stderr"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 3)) = 1 ]; then round "$r" "$T/new$r"; else round "$r" "$T/shared"; fi
	r=$((r + 1))
done
if [ -n "$FAULT" ]; then
	# flock() refused, as on NFS: the lock file serialises instead
	round 1 "$T/nolock" TB_FAULT_NOFLOCK=1
	round 4 "$T/nolock" TB_FAULT_NOFLOCK=1
	[ -e "$T/nolock/.trainbudget.lock" ] && ok "without flock() the lock file is used" \
		|| fail "without flock() no lock file was made"
fi
if [ "$bad_rc" = 0 ]; then
	ok "$runs concurrent runs into shared directories all exit 0"
else
	fail "$bad_rc of $runs concurrent runs failed: $(sort -u "$T/stderr" | head -3)"
fi
[ "$bad_set" = 0 ] && ok "every round leaves one run's complete set (winners:$winners)"

# ---- 2. interrupted runs -------------------------------------------------
# Each run replaces the previous variant's set with the next one's; the
# signal comes after a random delay up to 1.2 times that variant's run
# alone (so about half the signals come inside the output stage).  With
# the fault library's log, each kill is also placed: before the output
# stage, while the temporaries were written (the previous set must stay),
# or once the renames had begun (the new set must be whole).
D=$T/kill
mkdir -p "$D"
cp "$T/ref/1/"* "$D/"
cur=1 finished=0 kept_old=0 got_new=0 kbad=0 i=1
at_render=0 at_stage=0 at_commit=0
while [ "$i" -le "$KILLS" ]; do
	next=$((cur % NV + 1))
	# every third run without hard links (previous versions renamed aside)
	extra=
	[ -n "$FAULT" ] && extra=TB_FAULT_LOG=$T/kill.log
	[ -n "$FAULT" ] && [ $((i % 3)) = 0 ] && extra="$extra TB_FAULT_NOLINK=1"
	rm -f "$T/kill.log"
	set -- $SIGS
	[ $((i % 2)) = 0 ] && [ $# = 2 ] && sig=$2 || sig=$1
	eval "max_ms=\$((dur_$next * 12 / 10 + 5))"
	# the i-th number of one sequence (mawk's srand() of nearby or large
	# seeds gives nearby or equal first numbers)
	delay=$(awk -v s="$SEED" -v i="$i" -v m="$max_ms" \
		'BEGIN { srand(s % 1000003); for (k = 0; k < i; k++) r = rand(); printf "%.3f", r * m / 1000 }')
	# A simple command, so $! is trainbudget itself (env execs it), not a
	# subshell that a signal would end while the run goes on.
	# shellcheck disable=SC2046,SC2086
	env $SIGENV $FENV $extra "$BIN" report "$T/s$next/plan.yaml" -o "$D" $(args "$next") \
		>/dev/null 2>"$T/kill.err" &
	pid=$!
	sleep "$delay"
	kill -s "$sig" "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	rc=$?
	w=$(which_set "$D")
	stage=unknown
	if [ -n "$FAULT" ]; then
		stage=render
		grep -q '^openat \.trainbudget-.*\.tmp$' "$T/kill.log" 2>/dev/null && stage=staging
		grep -q '^renameat ' "$T/kill.log" 2>/dev/null && stage=commit
	fi
	case $rc:$w:$stage in
	0:"$next":*) finished=$((finished + 1)) ;;
	130:"$cur":render|143:"$cur":render) kept_old=$((kept_old + 1)) at_render=$((at_render + 1)) ;;
	130:"$cur":staging|143:"$cur":staging) kept_old=$((kept_old + 1)) at_stage=$((at_stage + 1)) ;;
	130:"$next":commit|143:"$next":commit) got_new=$((got_new + 1)) at_commit=$((at_commit + 1)) ;;
	130:"$cur":unknown|143:"$cur":unknown) kept_old=$((kept_old + 1)) ;;
	130:"$next":unknown|143:"$next":unknown) got_new=$((got_new + 1)) ;;
	*) kbad=$((kbad + 1))
	   fail "kill $i (SIG$sig after $delay s, variant $cur -> $next): exit $rc, reached $stage, directory holds $w: $(ls -A "$D" | tr '\n' ' ') $(head -2 "$T/kill.err")" ;;
	esac
	case $w in [1-8]) cur=$w ;; *) rm -rf "$D"; mkdir "$D"; cp "$T/ref/1/"* "$D/"; cur=1 ;; esac
	i=$((i + 1))
done
kills=$KILLS
[ "$kbad" = 0 ] && ok "$kills signals at random moments: $kept_old interrupted with the previous set whole ($at_render before the output stage, $at_stage while writing temporaries), $got_new with the new set whole (during the renames), $finished finished first; never a mix or a hidden file"
[ "$kept_old" -gt 0 ] || fail "no signal interrupted a run (delays too long?)"
if [ -n "$FAULT" ] && [ "$KILLS" -ge 20 ] && [ "$at_stage" = 0 ]; then
	fail "no signal landed while temporaries were written: the check proves little"
fi

# ---- 3. nowhere to print the paths -------------------------------------
# The list of paths is part of the result: when it cannot be delivered
# the previous set is put back and the run exits 3.
before=$(which_set "$D")
nv=$((before % NV + 1))
# shellcheck disable=SC2046
"$BIN" report "$T/s$nv/plan.yaml" -o "$D" $(args "$nv") >&- 2>"$T/err"
rc=$?
[ "$rc" = 3 ] && [ "$(which_set "$D")" = "$before" ] && ok "standard output closed: exit 3, the previous set" \
	|| fail "standard output closed: exit $rc, directory holds $(which_set "$D"): $(cat "$T/err")"
"$BIN" report "$T/s1/plan.yaml" -o "$T/never" >&- 2>/dev/null
rc=$?
[ "$rc" = 3 ] && [ ! -e "$T/never" ] && ok "standard output closed: no directory made" \
	|| fail "standard output closed into a new directory: exit $rc, $(ls -A "$T/never" 2>&1)"
if [ -w /dev/full ]; then
	# shellcheck disable=SC2046
	"$BIN" report "$T/s$nv/plan.yaml" -o "$D" $(args "$nv") >/dev/full 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] && [ "$(which_set "$D")" = "$before" ] && ok "standard output full: exit 3, the previous set" \
		|| fail "standard output full: exit $rc, directory holds $(which_set "$D")"
fi
mkfifo "$T/fifo"
# the reader goes away before the paths are printed: EPIPE, not SIGPIPE
(exec 3<"$T/fifo"; exec 3<&-) &
# shellcheck disable=SC2046
"$BIN" report "$T/s$nv/plan.yaml" -o "$D" $(args "$nv") >"$T/fifo" 2>"$T/err"
rc=$?
wait
[ "$rc" = 3 ] && [ "$(which_set "$D")" = "$before" ] && grep -q 'Broken pipe' "$T/err" \
	&& ok "a broken pipe: exit 3, the previous set" \
	|| fail "a broken pipe: exit $rc, directory holds $(which_set "$D"): $(cat "$T/err")"

secs=$(( ($(now_ms) - t_start + 500) / 1000 ))
placed="($at_render before the output stage, $at_stage while writing), new set $got_new (in the renames)"
[ -n "$FAULT" ] || placed="(not placed: no fault library), new set $got_new"
echo "figures: $runs concurrent runs in $ROUNDS+2 rounds of 2 or 5; $kills kills (SIG$(echo "$SIGS" | sed 's/ /, SIG/')," \
	"seed $SEED, delays up to 1.2 x each run alone): previous set $kept_old $placed, finished $finished;" \
	"output stage slowed ${DELAY_US} us per call; ${secs} s"
if [ "$fails" -gt 0 ]; then
	echo "cli-concurrency: $fails failure(s) (TB_SEED=$SEED to replay)" >&2
	exit 1
fi
echo "cli-concurrency: all checks passed"
