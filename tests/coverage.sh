#!/bin/sh
# Line coverage of src/ from the .gcda files a --coverage build left in DIR.
#   sh tests/coverage.sh DIR
# Prints one line per src/*.c and the total; writes DIR/coverage.txt and
# the annotated DIR/gcov/*.gcov files (lines marked ##### never ran).
set -eu
dir=$1
command -v gcov >/dev/null || { echo "coverage: gcov missing (Debian: gcc)" >&2; exit 1; }
mkdir -p "$dir/gcov"
out=$dir/coverage.txt
: >"$out"
total=0
hit=0
for src in src/*.c; do
	base=$(basename "$src" .c)
	[ -f "$dir/$base.gcno" ] || { printf '%-22s %s\n' "$src" "not built" >>"$out"; continue; }
	# gcov prints "File 'src/x.c'" then "Lines executed:P% of N" per file;
	# keep the one for the source itself, not its headers.
	# From the repository root, where the .gcno files say the sources are.
	line=$(gcov -n -o "$dir" "$src" 2>/dev/null |
		awk -v f="$src" '/^File /{cur=$2} /^Lines executed/{ if (index(cur, f)) { print; exit } }')
	gcov -t -o "$dir" "$src" >"$dir/gcov/$base.c.gcov" 2>/dev/null || true
	pct=$(echo "$line" | sed -n 's/^Lines executed:\([0-9.]*\)% of \([0-9]*\)$/\1/p')
	n=$(echo "$line" | sed -n 's/^Lines executed:\([0-9.]*\)% of \([0-9]*\)$/\2/p')
	if [ -z "$n" ]; then
		printf '%-22s %s\n' "$src" "no data (never ran)" >>"$out"
		n=0
		continue
	fi
	h=$(awk -v p="$pct" -v n="$n" 'BEGIN { printf "%d", p * n / 100 + 0.5 }')
	total=$((total + n))
	hit=$((hit + h))
	printf '%-22s %6.2f%% of %5d lines\n' "$src" "$pct" "$n" >>"$out"
done
awk -v h="$hit" -v t="$total" 'BEGIN { printf "%-22s %6.2f%% of %5d lines\n", "TOTAL", (t ? 100 * h / t : 0), t }' >>"$out"
cat "$out"
