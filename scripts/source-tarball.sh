#!/bin/sh
# make orig: the upstream source tarball a distribution builds from, without network:
# .build/deb/motiond_VERSION.orig.tar.xz, unpacking to motiond-VERSION/. It holds the files git
# tracks, as they are in the work tree (debian/ apart: the Debian source package carries that
# itself), and under vendor/NAME the sources of each Swift package Package.resolved pins, at
# exactly the pinned revision, with their licences (Package.swift builds from there when
# MOTIOND_VENDOR names the directory; the Makefile sets it when vendor/ is present). The same
# tree always gives the same tarball: names sorted, owner root, times the last commit's.
set -eu
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
out=.build/deb/motiond_$version.orig.tar.xz
[ -d .git ] || [ -f .git ] || { echo "source-tarball.sh: needs the git tree (it takes the files git tracks)" >&2; exit 1; }
[ -f Package.resolved ] || { echo "source-tarball.sh: no Package.resolved: it pins the versions the tarball carries" >&2; exit 1; }

# The pinned checkouts (from the repositories, or SwiftPM's cache of them).
swift package resolve >&2

stage=$(mktemp -d "${TMPDIR:-/tmp}/motiond-orig.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/motiond-$version
mkdir -p "$top/vendor"

git ls-files -z --cached --deduplicate -- . ':!:debian' |
    xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] && printf "%s\0" "$f"; done' sh |
    tar --null -T - -cf - | tar -xf - -C "$top"

python3 -c '
import json, sys
for pin in json.load(open("Package.resolved"))["pins"]:
    print(pin["location"].rstrip("/").split("/")[-1].removesuffix(".git"), pin["state"]["revision"], pin["state"].get("version", "-"))
' | while read -r name revision pinned; do
    checkout=.build/checkouts/$name
    actual=$(git -C "$checkout" rev-parse HEAD 2>/dev/null || echo none)
    [ "$actual" = "$revision" ] || {
        echo "source-tarball.sh: $checkout is at $actual, Package.resolved pins $revision ($pinned)" >&2; exit 1; }
    git -C "$checkout" archive --format=tar --prefix="$name/" "$revision" | tar -xf - -C "$top/vendor"
    echo "vendored $name $pinned ($revision)" >&2
done

mtime=$(git log -1 --format=%ct 2>/dev/null || date +%s)
mkdir -p "$(dirname "$out")"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -C "$stage" -cf - "motiond-$version" |
    xz -T1 -6 > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out"
