#!/bin/sh
# Runs the example reports under valgrind: zero errors, zero leaks.
set -eu
bin=$1
command -v valgrind >/dev/null || { echo "valgrind missing" >&2; exit 1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
n=0
for f in docs/examples/*.yaml; do
	[ -e "$f" ] || continue
	valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
		"$bin" report "$f" -o "$out" --format md,html,json,pdf >/dev/null
	n=$((n + 1))
done
echo "valgrind: $n example reports, 0 errors, 0 leaks"
