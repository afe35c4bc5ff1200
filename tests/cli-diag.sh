#!/bin/sh
# Hostile input against the diagnostics: output bounded whatever the input,
# and nothing read from an input (a file's bytes, a file name, an option, an
# environment variable, a title) reaches the terminal raw.  Run by
# tests/cli.sh as `sh tests/cli-diag.sh BIN`.
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
T=$(mktemp -d "${TMPDIR:-/tmp}/tb-diag.XXXXXX")
trap 'rm -rf "$T"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   - $1"; }
no() { fail=$((fail + 1)); echo "not ok - $1"; shift; for l in "$@"; do echo "    $l"; done; }

ESC=$(printf '\033')
BEL=$(printf '\007')
RLO=$(printf '\342\200\256')    # U+202E RIGHT-TO-LEFT OVERRIDE

# raw_free FILE DESC: no ESC, BEL or U+202E byte sequence in FILE.
raw_free() {
	if grep -q "$ESC\|$BEL\|$RLO" "$1"; then
		no "$2" "raw control characters in: $(od -c "$1" | head -n 3)"
	else
		ok "$2"
	fi
}

# ---- bounded -----------------------------------------------------------
# One 89 KB line, 9,000 unknown keys: 1.2 GB of errors before (each quoted
# the whole line); now twenty windows and a count.
awk 'BEGIN { printf "{title: x"; for (i = 0; i < 9000; i++) printf ", k%d: 1", i; print "}" }' >"$T/w.yaml"
rc=0
"$BIN" check "$T/w.yaml" >/dev/null 2>"$T/err" || rc=$?
bytes=$(wc -c <"$T/err")
if [ "$rc" -eq 1 ] && [ "$bytes" -lt 20000 ] &&
	grep -qx "8983 more errors not shown (the first 20 in source order are)" "$T/err" &&
	[ "$(tail -n 1 "$T/err")" = "9003 errors" ]; then
	ok "9,000 unknown keys on one line: $bytes bytes of errors, the rest counted"
else
	no "9,000 unknown keys on one line" "exit $rc, $bytes bytes" "$(tail -n 2 "$T/err")"
fi
# The first error quotes a window of the line, not the line.
if [ "$(sed -n 2p "$T/err" | wc -c)" -lt 200 ]; then
	ok "a long line is quoted as a window"
else
	no "a long line is quoted as a window" "$(sed -n 2p "$T/err" | wc -c) bytes"
fi

# A 1.2 MB line of duplicate keys: a minute, 12 GB of output and 24 GB of
# memory before.
awk 'BEGIN { printf "{title: x"; for (i = 0; i < 200000; i++) printf ", a: 1"; print "}" }' >"$T/dup.yaml"
rc=0
"$BIN" check "$T/dup.yaml" >/dev/null 2>"$T/err" || rc=$?
bytes=$(wc -c <"$T/err")
if [ "$rc" -eq 1 ] && [ "$bytes" -lt 20000 ] && grep -q "more errors not shown" "$T/err"; then
	ok "200,000 duplicate keys on a 1.2 MB line: $bytes bytes of errors"
else
	no "200,000 duplicate keys on a 1.2 MB line" "exit $rc, $bytes bytes"
fi

# ---- nothing raw reaches the terminal ------------------------------------
printf '\033]0;PWNED\007title: x\n' >"$T/e.yaml"
rc=0
"$BIN" check "$T/e.yaml" >/dev/null 2>"$T/err" || rc=$?
raw_free "$T/err" "an OSC sequence in a scenario is escaped in the error"
grep -qF '    \x1b]0;PWNED\x07title: x' "$T/err" && ok "and shown as \\x1b ... \\x07" ||
	no "the OSC sequence shown as \\x1b ... \\x07" "$(cat "$T/err")"

# A file name holding an escape: in the error, and on the "ok" line.
"$BIN" check "$T/no${ESC}[2Jsuch.yaml" >/dev/null 2>"$T/err"
raw_free "$T/err" "a file name with an escape, in an error"
cp docs/examples/default-7b.yaml "$T/ok${ESC}]0;x${BEL}.yaml"
"$BIN" check "$T/ok${ESC}]0;x${BEL}.yaml" >"$T/out" 2>&1
raw_free "$T/out" "a file name with an escape, on the ok line"
grep -qF 'ok\x1b]0;x\x07.yaml: ok' "$T/out" && ok "the ok line shows it escaped" ||
	no "the ok line shows it escaped" "$(cat "$T/out")"

# An option and an environment variable.
"$BIN" "--bad${ESC}[2J" >/dev/null 2>"$T/err"
raw_free "$T/err" "an unknown option with an escape"
SOURCE_DATE_EPOCH="1${ESC}[2J" "$BIN" report docs/examples/default-7b.yaml -o "$T/o1" >/dev/null 2>"$T/err"
raw_free "$T/err" "SOURCE_DATE_EPOCH with an escape"

# Report paths printed on standard output.
"$BIN" report docs/examples/default-7b.yaml --format md -o "$T/o${ESC}[2J" >"$T/out" 2>&1
raw_free "$T/out" "an output directory with an escape, in the list of files"

# A title with a bidirectional override, in estimate's text.
{ printf 'title: "evil \342\200\256gnp.exe"\n'; grep -v '^title:' docs/examples/default-7b.yaml; } >"$T/rlo.yaml"
"$BIN" estimate "$T/rlo.yaml" >"$T/out" 2>&1
raw_free "$T/out" "a right-to-left override in a title, in estimate"
grep -qF 'evil \u{202e}gnp.exe' "$T/out" && ok "shown as \\u{202e}" ||
	no "the override shown as \\u{202e}" "$(head -n 1 "$T/out")"

echo "cli-diag: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
