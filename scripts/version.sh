#!/bin/sh
# Prints the version: the one place it is written, Sources/MotionProtocol/MotionVersion.swift.
set -eu
cd "$(dirname "$0")/.."
version=$(sed -n 's/.*static let current = "\(.*\)".*/\1/p' Sources/MotionProtocol/MotionVersion.swift)
[ -n "$version" ] || { echo "version.sh: no version in Sources/MotionProtocol/MotionVersion.swift" >&2; exit 1; }
echo "$version"
