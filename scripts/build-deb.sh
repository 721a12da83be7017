#!/bin/sh
# make deb: the Debian source package and its binary packages, built as a distribution's build
# daemon builds them: the source tarball (make orig) unpacked, debian/ beside it, and
# dpkg-buildpackage (source, then binaries) in a network namespace without network (unshare -n:
# only a loopback interface, brought up as sbuild's unshare backend does — Foundation's Process
# wants a local socket pair — and no route anywhere), with a plain PATH (Debian's tools and the Swift
# toolchain, nothing of the user's own). The results go to .build/deb; lintian checks the source
# and binary packages together (errors and warnings fail).
set -eu
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
out=.build/deb
orig=$out/motiond_$version.orig.tar.xz
[ -f "$orig" ] || { echo "build-deb.sh: no $orig (make orig makes it)" >&2; exit 1; }
swift=$(command -v swift) || { echo "build-deb.sh: no swift on PATH (the toolchain builds the binaries)" >&2; exit 1; }

work=$out/build
rm -rf "$work"
mkdir -p "$work"
cp "$orig" "$work/"
tar -xf "$orig" -C "$work"
src=$work/motiond-$version
git ls-files -z debian | tar --null -T - -cf - | tar -xf - -C "$src"
scripts/debian-changelog.sh > "$src/debian/changelog"

offline="unshare --net"
[ "$(id -u)" -eq 0 ] || offline="unshare --net --map-root-user"
(cd "$src" && env PATH="/usr/sbin:/usr/bin:/sbin:/bin:$(dirname "$swift")" \
    $offline sh -c 'ip link set lo up && exec dpkg-buildpackage -us -uc')

rm -f "$out"/*.deb "$out"/*.dsc "$out"/*.debian.tar.* "$out"/*.buildinfo "$out"/*.changes
mv "$work"/*.deb "$work"/*.dsc "$work"/*.debian.tar.* "$work"/*.buildinfo "$work"/*.changes "$out/"
rm -rf "$work"
lintian --fail-on warning --info --display-info "$out"/motiond_"$version"-*.changes
