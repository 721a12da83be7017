#!/bin/sh
# Writes the manual pages into OUTDIR: motiond(8), motionctl(1), motiond-rotate(1) and
# monitor-sensor(1) from their ArgumentParser definitions by swift-argument-parser's own manual
# generator (the GenerateManual plugin's tool, which reads each command's
# --experimental-dump-help), and
# motiond.toml(5) from the annotated etc/motiond/motiond.toml (scripts/config-manpage.py): the
# pages say what the code and the shipped file say, always.
#
# Usage: scripts/manpages.sh BINDIR OUTDIR
#   BINDIR: where motiond, motionctl and the motiond-rotate and monitor-sensor links are (.build/release).
# The date on the pages: $SOURCE_DATE_EPOCH (as Debian's builds set it), else the last
# commit's, else today.
set -eu
bindir=$1
out=$2
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%F)
else
    date=$(git log -1 --format=%cs 2>/dev/null || date -u +%F)
fi
# The generator is swift-argument-parser's generate-manual, the tool its GenerateManual plugin
# runs, built as a product of its own: the plugin would also build every product of this package
# in debug (the test support among them, which needs umockdev: not a build dependency), and it
# gives every command the same section.
tool=.build/debug/generate-manual
[ -x "$tool" ] || swift build --product generate-manual >&2
mkdir -p "$out"
"$tool" "$bindir/motiond" --section 8 --date "$date" --authors "motiond maintainers" -o "$out"
"$tool" "$bindir/motionctl" --section 1 --date "$date" --authors "motiond maintainers" -o "$out"
"$tool" "$bindir/motiond-rotate" --section 1 --date "$date" --authors "motiond maintainers" -o "$out"
"$tool" "$bindir/monitor-sensor" --section 1 --date "$date" --authors "motiond maintainers" -o "$out"
# A blank line in the commands' discussions is a paragraph break: mdoc's, not an empty line
# (which groff warns about).
sed -i 's/^$/.Pp/' "$out/motiond.8" "$out/motionctl.1" "$out/motiond-rotate.1" "$out/monitor-sensor.1"
python3 scripts/config-manpage.py --date "$date" --version "$version" etc/motiond/motiond.toml "$out/motiond.toml.5"
echo "manual pages of motiond $version ($date) in $out: $(cd "$out" && ls | tr '\n' ' ')" >&2
