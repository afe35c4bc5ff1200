#!/bin/sh
# make install / make uninstall into a throw-away DESTDIR, with a PREFIX.
# sh tests/cli-install.sh BIN: installs BIN itself (make -o keeps make from
# relinking it, so the sanitizer build is installed as it is).
set -eu
BIN=${1:?usage: sh tests/cli-install.sh BIN}
D=$(mktemp -d "${TMPDIR:-/tmp}/tb-install.XXXXXX")
trap 'rm -rf "$D"' EXIT INT TERM
fail() { echo "cli-install: FAIL - $1" >&2; exit 1; }

make -s --no-print-directory -o "$BIN" BIN="$BIN" install DESTDIR="$D" PREFIX=/opt/tb >/dev/null \
	|| fail "make install DESTDIR=$D PREFIX=/opt/tb"
[ -x "$D/opt/tb/bin/trainbudget" ] || fail "no executable at \$DESTDIR/opt/tb/bin/trainbudget"
"$D/opt/tb/bin/trainbudget" --version | grep -q '^trainbudget ' || fail "the installed binary runs"
[ -f "$D/opt/tb/share/trainbudget/templates/report.md" ] || fail "templates installed"
[ -f "$D/opt/tb/share/doc/trainbudget/LICENSE" ] || fail "LICENSE installed"
[ -f "$D/opt/tb/share/trainbudget/fonts/DejaVuSansMono.ttf" ] || fail "the PDF's subset fonts installed"
echo "ok   - make install DESTDIR PREFIX=/opt/tb"

make -s --no-print-directory uninstall DESTDIR="$D" PREFIX=/opt/tb >/dev/null \
	|| fail "make uninstall"
left=$(find "$D" -type f)
[ -z "$left" ] || fail "make uninstall left: $left"
echo "ok   - make uninstall removes every installed file"
