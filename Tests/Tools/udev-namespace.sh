#!/bin/sh
# Runs a command (typically `umockdev-run -d FIXTURE -- udevadm test --action=add SYSPATH`)
# where udev cannot touch the host: a private mount namespace with its own tmpfs on /run and
# /dev, a private /etc/udev, and private copies of /etc/group and /etc/passwd that know the
# group and user motiond. Recipe: ../shared/reference/platform-testing.md section 10.2.
#
# Usage (as root):
#   sh Tests/Tools/udev-namespace.sh [--rules FILE]... [--hwdb FILE]... -- COMMAND [ARG]...
#     --rules FILE   copied into /run/udev/rules.d (a rule of the same name in /etc/udev is hidden)
#     --hwdb FILE    copied into the private /etc/udev/hwdb.d and compiled (systemd-hwdb update)
#   Inside, MOTIOND_GID and MOTIOND_UID hold the ids given to motiond.
#
# udevadm test really creates /dev and /run/udev entries: never run it outside this script.
set -eu

. "$(dirname "$0")/private-namespace.sh"
[ "${1:-}" = --in-private-namespace ] || enter_private_namespace "$0" "$@"
shift
require_private_namespace udev-namespace.sh "/dev and /run"

rules="" hwdb=""
while [ $# -gt 0 ]; do
    case "$1" in
        --rules) rules="$rules $2"; shift 2 ;;
        --hwdb) hwdb="$hwdb $2"; shift 2 ;;
        --) shift; break ;;
        *) echo "udev-namespace.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ $# -gt 0 ] || { echo "udev-namespace.sh: no command" >&2; exit 64; }

work=$(mktemp -d /tmp/motiond-udev-ns.XXXXXX)
trap 'rm -rf "$work"' EXIT

# /run and /dev first (so that nothing, not even mount's own bookkeeping, reaches the real
# /run): private tmpfs, with the few nodes programs expect and a devpts instance of our own
# (umockdev's scripted devices need openpty). -n: no utab entries.
mount -n -t tmpfs -o mode=0755 tmpfs /run
mount -n -t tmpfs -o mode=0755 tmpfs /dev
mknod -m 666 /dev/null c 1 3
mknod -m 666 /dev/zero c 1 5
mknod -m 666 /dev/random c 1 8
mknod -m 666 /dev/urandom c 1 9
mkdir /dev/pts /dev/shm
mount -n -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts
ln -s pts/ptmx /dev/ptmx
ln -s /proc/self/fd /dev/fd

# Users and groups: motiond gets the first free id from 64000 (ids udev and chgrp resolve
# through NSS files, i.e. these bind-mounted copies).
cp /etc/group "$work/group"
cp /etc/passwd "$work/passwd"
id=64000
while cut -d: -f3 "$work/group" "$work/passwd" | grep -qx "$id"; do id=$((id + 1)); done
grep -q '^motiond:' "$work/group" || echo "motiond:x:$id:" >> "$work/group"
grep -q '^motiond:' "$work/passwd" || echo "motiond:x:$id:$id:motiond:/nonexistent:/usr/sbin/nologin" >> "$work/passwd"
mount -n --bind "$work/group" /etc/group
mount -n --bind "$work/passwd" /etc/passwd
MOTIOND_GID=$(grep '^motiond:' /etc/group | cut -d: -f3)
MOTIOND_UID=$(grep '^motiond:' /etc/passwd | cut -d: -f3)
export MOTIOND_GID MOTIOND_UID

# A private /etc/udev: rules under test are not shadowed by installed ones of the same name,
# and hwdb files are compiled into its hwdb.bin (found before /usr/lib/udev/hwdb.bin).
mkdir "$work/udev"
[ -d /etc/udev ] && cp -a /etc/udev/. "$work/udev/"
mkdir -p "$work/udev/rules.d" "$work/udev/hwdb.d" /etc/udev
mount -n --bind "$work/udev" /etc/udev
mkdir -p /run/udev/rules.d
for file in $rules; do
    rm -f "/etc/udev/rules.d/$(basename "$file")"
    cp "$file" /run/udev/rules.d/
done
if [ -n "$hwdb" ]; then
    for file in $hwdb; do
        name=$(basename "$file")
        cp "$file" "/etc/udev/hwdb.d/${name%.example}"
    done
    systemd-hwdb update
fi

"$@"
