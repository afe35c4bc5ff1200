#!/bin/sh
# A headless Chromium screenshot of the demo report's HTML, to look at:
# tables, charts and derivations as a browser draws them.
#   sh tests/screenshot.sh [BIN [SCENARIO]]   writes out/NAME.png
# Needs Debian's chromium (apt-get install -y chromium), a development tool
# only: nothing in the build or the test suite depends on it.
set -eu
BIN=${1:-build/trainbudget}
SCENARIO=${2:-docs/examples/default-7b.yaml}
command -v chromium >/dev/null || { echo "screenshot: chromium missing (apt-get install -y chromium)" >&2; exit 1; }
name=$(basename "$SCENARIO" .yaml)
mkdir -p out
"$BIN" report "$SCENARIO" -o out --format html >/dev/null
# a private profile, so a run never touches the user's browser state
profile=$(mktemp -d "${TMPDIR:-/tmp}/tb-chromium.XXXXXX")
trap 'rm -rf "$profile"' EXIT INT TERM
# Headless Chromium shoots the top of the page only: the page is shot in
# PAGES slices of HEIGHT pixels, each a copy shifted up (out/NAME-N.png).
H=${HEIGHT:-4000}
i=0
while [ "$i" -lt "${PAGES:-3}" ]; do
	shifted="$profile/$name-$i.html"
	sed "s|<main>|<main style=\"margin-top:-$((i * H))px\">|" "out/$name.html" >"$shifted"
	chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$profile/p" --window-size=1200,$H \
		--screenshot="out/$name-$i.png" "file://$shifted" >/dev/null 2>&1
	[ -s "out/$name-$i.png" ] || { echo "screenshot: no out/$name-$i.png written" >&2; exit 1; }
	echo "screenshot: wrote out/$name-$i.png"
	i=$((i + 1))
done
