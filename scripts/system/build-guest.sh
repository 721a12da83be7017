#!/bin/sh
# Builds (once) what the system test tier boots: Debian's own kernel, unpacked from its .deb and
# never installed, and a Debian root file system with systemd as PID 1, packed as an uncompressed
# initramfs (newc cpio) that the kernel unpacks into its tmpfs rootfs (rdinit=/sbin/init).
# Everything is cached under $MOTIOND_SYSTEM_CACHE (default ~/.cache/motiond-system), keyed by the
# kernel package and a hash of the package list and this script, so a second run only boots.
#
# Usage: scripts/system/build-guest.sh [BINARY...]
#   BINARY: programs the guest must be able to run (motiond, motionctl); the Debian packages that
#   own the libraries `ldd` lists for them are added to the root.
# Prints three lines on stdout: KVER=…, VMLINUZ=…, ROOTCPIO=… (everything else goes to stderr).
set -eu
cache=${MOTIOND_SYSTEM_CACHE:-$HOME/.cache/motiond-system}
mirror=${MOTIOND_SYSTEM_MIRROR:-http://deb.debian.org/debian}
suite=${MOTIOND_SYSTEM_SUITE:-bookworm}
here=$(cd "$(dirname "$0")" && pwd)
log() { echo "build-guest: $*" >&2; }

need() { # command package
    command -v "$1" >/dev/null 2>&1 && return 0
    log "installing $2"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" >&2
}
need mmdebstrap mmdebstrap
need cpio cpio
need depmod kmod

# ---- kernel ------------------------------------------------------------------------------
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kpkg" ] || { log "apt-cache depends linux-image-amd64 names no kernel package"; exit 1; }
kver=${kpkg#linux-image-}
kdir=$cache/kernel-$kver
if [ ! -f "$kdir/unpacked/boot/vmlinuz-$kver" ]; then
    log "downloading and unpacking $kpkg"
    rm -rf "$kdir"; mkdir -p "$kdir"
    (cd "$kdir" && apt-get download "$kpkg" >&2 2>/dev/null || apt-get download "$kpkg" >&2)
    dpkg-deb -x "$kdir"/"$kpkg"_*.deb "$kdir/unpacked.tmp"
    mv "$kdir/unpacked.tmp" "$kdir/unpacked"
fi
vmlinuz=$kdir/unpacked/boot/vmlinuz-$kver

# ---- the software-trigger modules ---------------------------------------------------------
# Debian's amd64 kernel leaves CONFIG_IIO_CONFIGFS, CONFIG_IIO_SW_TRIGGER and
# CONFIG_IIO_HRTIMER_TRIGGER unset; board kernels build them. The board checks need them, so they
# are built out of tree from Debian's own source of exactly this kernel (linux-source-6.1 at the
# image's version) against its headers (linux-headers-KVER, with the -common part and
# linux-kbuild-6.1's tools), all unpacked here, never installed: industrialio-configfs,
# industrialio-sw-trigger and iio-trig-hrtimer, unchanged. The kernel does not force module
# signatures (CONFIG_MODULE_SIG_FORCE unset), so they load, tainting it. When a package of that
# version cannot be had, the guest goes without and the board checks test the fallback (polling,
# said once); the reason is printed here.
kversion=$(apt-cache show "$kpkg" | awk '/^Version:/ {print $2; exit}')
swdir=$kdir/sw-trigger
swmods="industrialio-configfs industrialio-sw-trigger iio-trig-hrtimer"
build_sw_trigger() {
    need gcc-12 gcc-12; need make make; need xz xz-utils
    rm -rf "$swdir"; mkdir -p "$swdir/debs" "$swdir/root" "$swdir/src"
    (cd "$swdir/debs" && apt-get download "linux-source-6.1=$kversion" "linux-headers-$kver=$kversion" \
        "linux-headers-${kver%-*}-common=$kversion" "linux-kbuild-6.1=$kversion" >&2 2>/dev/null) || {
        log "no linux-source-6.1, linux-headers-$kver, -common or linux-kbuild-6.1 at $kversion (the image's version): the guest has no software trigger"
        return 1; }
    for deb in "$swdir"/debs/linux-headers-*.deb "$swdir"/debs/linux-kbuild-*.deb; do dpkg-deb -x "$deb" "$swdir/root"; done
    # The headers' Makefile includes the -common part by its absolute path.
    sed -i "s|/usr/src/|$swdir/root/usr/src/|" "$swdir/root/usr/src/linux-headers-$kver/Makefile"
    dpkg-deb --fsys-tarfile "$swdir"/debs/linux-source-6.1_*.deb | tar -xO ./usr/src/linux-source-6.1.tar.xz |
        tar -xJ -C "$swdir/src" --strip-components=3 --wildcards 'linux-source-6.1/drivers/iio/industrialio-configfs.c' \
            'linux-source-6.1/drivers/iio/industrialio-sw-trigger.c' 'linux-source-6.1/drivers/iio/trigger/iio-trig-hrtimer.c'
    # The trigger's file sits one directory deeper in the tree.
    mv "$swdir/src/trigger/iio-trig-hrtimer.c" "$swdir/src/"
    echo "obj-m += $(echo $swmods | sed 's/\([^ ]*\)/\1.o/g')" > "$swdir/src/Kbuild"
    make -s -C "$swdir/root/usr/src/linux-headers-$kver" M="$swdir/src" modules >&2 || {
        log "building $swmods against linux-headers-$kver failed: the guest has no software trigger"; return 1; }
    for m in $swmods; do cp "$swdir/src/$m.ko" "$swdir/"; done
    rm -rf "$swdir/debs" "$swdir/root" "$swdir/src"
}
if [ ! -f "$swdir/iio-trig-hrtimer.ko" ]; then
    log "building the IIO software-trigger modules for $kver from linux-source-6.1 $kversion"
    build_sw_trigger || true
fi

# ---- packages ----------------------------------------------------------------------------
# iio-sensor-proxy (and its monitor-sensor): the peer motiond must coexist with, and the D-Bus
# client motiond's net.hadess.SensorProxy face is tried with; python3 runs the Python example;
# procps has kill (the unit's ExecReload), as on any Debian system but minbase's; libinput-tools
# has `libinput debug-events`, which reads motiond's tablet-mode switch as a desktop would;
# man-db shows the manual pages the motiond package installs; python3-pyqt5.qtsensors is
# QtSensors with its iio-sensor-proxy plugin, a desktop's client of net.hadess.SensorProxy
# (the Qt check compares what it reads from iio-sensor-proxy and from motiond); i2c-tools
# writes the registers of the I2C chips the board checks bind real drivers to (i2c-stub).
pkgs="systemd systemd-sysv udev dbus kmod libiio0 libudev1 libsystemd0 iio-sensor-proxy python3 procps libinput-tools man-db python3-pyqt5.qtsensors i2c-tools"
for bin in "$@"; do
    for lib in $(ldd "$bin" | awk '$3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'); do
        real=$(readlink -f "$lib")
        owner=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "/usr$lib" 2>/dev/null || true)
        owner=${owner%%:*}
        [ -n "$owner" ] || { log "no package owns $lib (needed by $bin)"; exit 1; }
        pkgs="$pkgs $owner"
    done
done
pkgs=$(printf '%s\n' $pkgs | sort -u | tr '\n' ' ')
# Bump when the way the root is made changes (the key then names a new cached root).
layout=4
key=$(printf '%s\n' "$layout" "$suite" "$kver" "$pkgs" "$(cat "$swdir"/*.ko 2>/dev/null | sha256sum)" | sha256sum | cut -c1-16)
rdir=$cache/root-$suite-$kver-$key
if [ ! -f "$rdir/root.cpio" ]; then
    log "building the guest root ($suite, packages: $pkgs)"
    rm -rf "$rdir"; mkdir -p "$rdir"
    tree=$rdir/tree
    # No documentation, manual pages or locales: the root lives in the guest's RAM.
    mmdebstrap --variant=minbase --include="$(echo $pkgs | tr ' ' ',')" \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*' \
        --dpkgopt='path-exclude=/usr/share/info/*' \
        "$suite" "$tree" "$mirror" >&2
    # The kernel's modules that the HID sensor hub, IIO and the boot need (the whole tree is
    # 390 MB): everything under drivers/hid, drivers/iio, plus what they depend on; depmod gives
    # udev the aliases, so modprobe loads hid-sensor-* when the uhid device appears. uinput is
    # the device behind motiond's tablet-mode switch, evdev gives it its /dev/input/event node;
    # i2c-stub and i2c-dev are the board checks' I2C bus and its registers' door; configfs is
    # what the software-trigger modules (above) create their triggers in.
    msrc=$kdir/unpacked/lib/modules/$kver
    mdst=$tree/usr/lib/modules/$kver
    mkdir -p "$mdst"
    cp "$msrc"/modules.order "$msrc"/modules.builtin "$msrc"/modules.builtin.modinfo "$mdst"/
    list=$(cd "$msrc" && find kernel/drivers/hid kernel/drivers/iio -name '*.ko*'
           find kernel/drivers/input -name 'uinput.ko*' -o -name 'evdev.ko*'
           find kernel/drivers/i2c -name 'i2c-stub.ko*' -o -name 'i2c-dev.ko*'
           find kernel/fs/configfs -name 'configfs.ko*')
    while [ -n "$list" ]; do
        next=""
        for m in $list; do
            [ -e "$mdst/$m" ] && continue
            mkdir -p "$mdst/$(dirname "$m")"; cp "$msrc/$m" "$mdst/$m"
            for d in $(modinfo -F depends "$msrc/$m" | tr ',' ' '); do
                f=$(cd "$msrc" && find kernel -name "$d.ko*" -o -name "$(echo "$d" | tr _ -).ko*" | head -1)
                [ -n "$f" ] && next="$next $f"
            done
        done
        list=$next
    done
    # The software-trigger modules (above), where Debian puts what it does not ship.
    if [ -f "$swdir/iio-trig-hrtimer.ko" ]; then
        mkdir -p "$mdst/updates/iio"
        for m in $swmods; do cp "$swdir/$m.ko" "$mdst/updates/iio/"; done
    fi
    depmod -b "$tree" "$kver"
    # systemd as PID 1 straight from the initramfs: the kernel needs /dev/console for init's stdio.
    rm -f "$tree/dev/console"; mknod -m 600 "$tree/dev/console" c 5 1
    echo motiond-guest > "$tree/etc/hostname"
    : > "$tree/etc/fstab"
    # Nothing that waits for a terminal, the network or the clock; no timers during a test.
    for u in serial-getty@ttyS0.service getty@tty1.service apt-daily.timer apt-daily-upgrade.timer \
             e2scrub_all.timer fstrim.timer systemd-timesyncd.service man-db.timer; do
        ln -sf /dev/null "$tree/etc/systemd/system/$u"
    done
    # What the tests install in the guest (the motiond package) keeps its documentation and
    # manual pages: the exclusions above were for the root's own packages.
    rm -f "$tree/etc/dpkg/dpkg.cfg.d/99mmdebstrap"
    # A root without a password, to look around when booting it by hand.
    chroot "$tree" passwd -d root >/dev/null 2>&1 || true
    (cd "$tree" && find . -xdev | LC_ALL=C sort | cpio -o -H newc --quiet) > "$rdir/root.cpio.tmp"
    mv "$rdir/root.cpio.tmp" "$rdir/root.cpio"
    log "guest root: $(du -sh "$tree" | cut -f1) tree, $(du -h "$rdir/root.cpio" | cut -f1) cpio"
fi
echo "KVER=$kver"
echo "VMLINUZ=$vmlinuz"
echo "ROOTCPIO=$rdir/root.cpio"
