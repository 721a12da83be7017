#!/bin/sh
# Writes debian/changelog for `make deb` from the one version (Sources/MotionProtocol/
# MotionVersion.swift); the changes themselves are CHANGELOG.md's, installed beside it. The
# date is the last commit's (a package built twice from one commit is the same), else now.
set -eu
cd "$(dirname "$0")/.."
version=$(scripts/version.sh)
maintainer=$(sed -n 's/^Maintainer: //p' debian/control)
date=$(git log -1 --format=%aD 2>/dev/null || date -R)
cat <<EOC
motiond ($version-1) unstable; urgency=medium

  * motiond $version: /usr/share/doc/motiond/CHANGELOG.md says what changed.

 -- $maintainer  $date
EOC
