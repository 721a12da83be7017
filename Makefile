# motiond — Core Motion for Linux.
#   make demo     run the daemon on the built-in simulated IMU and show live device motion
#   make check    build and run every test (emulated IIO hardware through umockdev and iiod)
#   make install  install binaries and system files (PREFIX, DESTDIR)

PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
SYSCONFDIR  ?= /etc
UNITDIR     ?= $(PREFIX)/lib/systemd/system
UDEVDIR     ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR      ?= $(PREFIX)/share/man
# Where each shell looks for completions a package installs.
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
# dbus-daemon and polkit read their policies from /usr/share (and dbus also from /etc) only,
# whatever the PREFIX.
DBUSPOLICYDIR ?= /usr/share/dbus-1/system.d
POLKITDIR   ?= /usr/share/polkit-1/actions
SWIFT       ?= swift
SWIFTFLAGS  ?=
# Release binaries carry the Swift runtime (installed ones must not need a toolchain, and the
# daemon's resident memory drops by a fifth: only the pages it uses are loaded), and resolve
# their few shared-library symbols at start (BIND_NOW: the relocations then become read-only).
# Every function gets a section of its own, and the linker puts those motiond runs at rest
# together (scripts/rest-path.order, written by Benchmarks/power/rest_code_order.sh): after a
# code-page release a still device's readings fault back a few 64-KiB windows of code, not
# dozens scattered over the binary (docs/PERFORMANCE.md).
RELEASEFLAGS ?= --static-swift-stdlib -Xlinker -z -Xlinker now -Xswiftc -Xfrontend -Xswiftc -function-sections \
	-Xlinker --section-ordering-file=$(CURDIR)/scripts/rest-path.order
DEMO_SECONDS ?= 20
# What installs the Debian packages a target needs when any is missing; a package build, whose
# Build-Depends are the contract, sets it to `:` (debian/rules).
DEPS_INSTALL ?= scripts/install-deps.sh
# The source tarball (make orig) carries the Swift dependencies under vendor/: built from there,
# the build resolves nothing and needs no network (Package.swift's dependency()).
export MOTIOND_VENDOR := $(if $(wildcard vendor/swift-log/Package.swift),$(CURDIR)/vendor)

.PHONY: all build bench-tool release-flags man orig deb demo check check-python python-wheel check-peer check-system check-tsan check-asan test deps test-deps install install-data install-sensor-proxy install-sensor-proxy-dropin install-sensor-proxy-package uninstall-sensor-proxy uninstall clean accuracy vqf-venv bench bench-hinge bench-daemon bench-client bench-power

all: build

deps:
	@$(DEPS_INSTALL) build

test-deps:
	@$(DEPS_INSTALL) test

# motionctl is also motiond-rotate (one binary, one copy of the Swift runtime and FoundationEssentials):
# started through a link of that name it rotates the screen.
build: deps release-flags
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	case '$(RELEASEFLAGS)' in *section-ordering-file*) scripts/check-code-order.sh .build/release/motiond;; esac
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	ln -sf motionctl .build/release/motiond-rotate
	ln -sf motionctl .build/release/monitor-sensor

# Manual pages (motiond(8), motionctl(1), motiond-rotate(1), motiond.toml(5)) and shell
# completions, generated from the commands' own definitions and the shipped configuration.
man: build
	scripts/manpages.sh .build/release .build/man
	mkdir -p .build/completions
	for c in motiond motionctl motiond-rotate; do \
		.build/release/$$c --generate-completion-script bash | sed '1{/^#!/d}' > .build/completions/$$c.bash && \
		.build/release/$$c --generate-completion-script zsh > .build/completions/_$$c && \
		.build/release/$$c --generate-completion-script fish > .build/completions/$$c.fish || exit 1; \
	done

# The upstream source tarball, self-contained: .build/deb/motiond_VERSION.orig.tar.xz, the files
# git tracks (debian/ apart) and, under vendor/, the Swift packages Package.resolved pins.
orig:
	scripts/source-tarball.sh

# The Debian source package and its binary packages, built as a distribution's build daemon
# does: from the source tarball (make orig) with debian/ beside it, by dpkg-buildpackage in a
# network namespace with no network (scripts/build-deb.sh). In .build/deb: the .dsc with its
# tarballs, motiond_VERSION-1_ARCH.deb, motiond-sensor-proxy_VERSION-1_ARCH.deb (motiond in place
# of iio-sensor-proxy) and python3-motiond_VERSION-1_all.deb, checked by lintian (errors and
# warnings fail the build). debian/changelog is written from the one version.
deb: orig
	@$(DEPS_INSTALL) deb
	scripts/build-deb.sh
	@ls -la .build/deb/*.deb

# The developer tool of the benchmarks and the accuracy evaluation (Benchmarks/; never installed).
bench-tool: deps release-flags
	$(SWIFT) build -c release --product motiond-bench $(RELEASEFLAGS) $(SWIFTFLAGS)

# SwiftPM rebuilds what changed in the sources, not what changed in the flags (a release tree
# built without -function-sections stayed so, and the rest path went unordered): a release
# build whose RELEASEFLAGS differ from the last one's starts from a clean release directory.
release-flags:
	@flags='$(RELEASEFLAGS) $(SWIFTFLAGS)'; stamp=.build/release-flags; \
	if [ -e .build/release ] && [ "$$(cat $$stamp 2>/dev/null)" != "$$flags" ]; then \
		echo "release flags changed: .build/release is built again from scratch"; rm -rf "$$(readlink -f .build/release)"; \
	fi; \
	mkdir -p .build && printf '%s\n' "$$flags" > $$stamp

# The daemon on the simulated IMU (rest, the four screen orientations, a shake, face up, face
# down) serving a private socket, and a client watching it: orientation changes, shakes,
# gestures and the attitude once a second. Stop with Ctrl-C.
demo: build
	@echo "motiond on the simulated IMU (sim:), watched by motionctl monitor for $(DEMO_SECONDS) s — Ctrl-C stops"
	@sock=$$(mktemp -u /tmp/motiond-demo-XXXXXX.sock); \
	.build/release/motiond --source sim: --socket $$sock --log-level notice & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null' EXIT INT TERM; \
	.build/release/motionctl monitor --socket $$sock --wait 5 --interval 1 --frame xMagneticNorthZVertical \
		--duration $(DEMO_SECONDS) orientation shake gesture deviceMotion

check: test-deps
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	ln -sf motionctl .build/debug/motiond-rotate
	ln -sf motionctl .build/debug/monitor-sensor
	# The manual pages as make install writes them, for CommandConventionsTests to read.
	scripts/manpages.sh .build/debug .build/check-man
	# The umockdev preload lets hot-plug tests send uevents from the test process; it passes
	# everything through until a test creates a testbed.
	# The library targets' tests first, then the end-to-end ones: together, the libraries'
	# synchronous thread and timing tests held the test process's two shared threads for 20 s
	# and more while the end-to-end tests waited for their daemons' hellos.
	LD_PRELOAD=libumockdev-preload.so.0 $(SWIFT) test --skip-build --skip '$(END_TO_END_TESTS)|$(CORE_TESTS)' $(SWIFTFLAGS)
	LD_PRELOAD=libumockdev-preload.so.0 $(SWIFT) test --skip-build --filter '$(END_TO_END_TESTS)' --skip '$(ROTATE_TESTS)|$(FLOOD_TESTS)|$(TIMING_TESTS)' $(SWIFTFLAGS)
	# The socket and client suites time arrivals and count values in windows of seconds: beside
	# the rest they read late (see TIMING_TESTS), so they run on their own, one test at a time
	# (in parallel, the chaos test's flood merged two of the batching test's bursts in one run).
	$(SWIFT) test --skip-build --no-parallel --filter '$(TIMING_TESTS)' $(SWIFTFLAGS)
	# The motion model's tests compute for tens of seconds on whole BROAD recordings, holding the
	# test process's cooperative threads, which the socket tests' readers need (a reader that does
	# not get to read loses samples): they run on their own.
	$(SWIFT) test --skip-build --filter '$(CORE_TESTS)' $(SWIFTFLAGS)
	# The compositors (headless sway, Xvfb) run on their own: beside the rest they starve
	# the timing-sensitive hot-plug and socket tests of CPU on a two-core machine.
	$(SWIFT) test --skip-build --filter '$(ROTATE_TESTS)' $(SWIFTFLAGS)
	# So does the D-Bus face's flood of claims (many connections for seconds).
	$(SWIFT) test --skip-build --filter '$(FLOOD_TESTS)' $(SWIFTFLAGS)
	# Every fuzz target replays its committed corpus (past findings included); fuzzing for a
	# while is check-fuzz's.
	$(MAKE) check-fuzz FUZZ_CHECK_SECONDS=0
	# The README's Swift blocks, built as an application (.build/readme-app) and run against motiond.
	SWIFT='$(SWIFT)' scripts/readme-snippets.sh .build/debug/motiond
	# The Python package (clients/python) against the daemon just built.
	$(MAKE) check-python

test: check

# The Python package (clients/python): a wheel into .build/python, built offline with Debian's
# setuptools and wheel; check-python installs the package into a fresh venv as a user would
# (pip install ./clients/python, its build requirements from Debian's wheels, no network) and
# runs its unittest suite there against .build/debug/motiond (on sim: and a replayed trace).
PYTHON3       ?= /usr/bin/python3
PYTHON_VENV    = .build/python-venv
PYTHON_WHEELS ?= /usr/share/python-wheels
python-wheel:
	@$(DEPS_INSTALL) python
	rm -rf .build/python
	$(PYTHON3) -m pip wheel --no-build-isolation --no-deps --no-index -w .build/python ./clients/python
	rm -rf clients/python/build clients/python/src/motiond.egg-info
	@ls .build/python/*.whl

check-python:
	@$(DEPS_INSTALL) python
	test -x .build/debug/motiond || $(SWIFT) build --product motiond $(SWIFTFLAGS)
	rm -rf $(PYTHON_VENV)
	$(PYTHON3) -m venv $(PYTHON_VENV)
	$(PYTHON_VENV)/bin/python -m pip install --quiet --no-index --find-links $(PYTHON_WHEELS) ./clients/python
	rm -rf clients/python/build clients/python/src/motiond.egg-info
	cd clients/python/tests && MOTIOND=$(CURDIR)/.build/debug/motiond ../../../$(PYTHON_VENV)/bin/python -m unittest discover -v -s . -t .

# motiond-rotate's end-to-end suite, the one with the compositors. swift test's --filter and
# --skip are regular expressions, searched in TARGET.SUITE/TEST()/FILE.swift:LINE:COLUMN and in
# each suite's TARGET.SUITE: anchored, so that neither MotionRotateTests nor a file name matches.
ROTATE_TESTS = ^EndToEndTests\.RotateTests\b
# The D-Bus face's defect suite, whose flood test keeps a private bus busy for seconds.
FLOOD_TESTS = ^EndToEndTests\.SensorProxyDefectTests\b
# MotionCore's tests: pure computation, no deadlines.
CORE_TESTS = ^MotionCoreTests\.
# The tests that run motiond, motionctl or motiond-rotate as processes.
END_TO_END_TESTS = ^EndToEndTests\.
# The suites that time a running motiond's pushes from the client's side. In one run with
# everything else, the test process's two shared threads were seen busy for 15-20 s at a time
# (fixture traces generated in debug builds, localedef, children reaped, synchronous thread
# tests), so their reads came seconds late: bursts merged, drops, a replay's first pose missed.
TIMING_TESTS = ^EndToEndTests\.(Socket(Batching|Clients|Concurrency|Stream)Tests|MotionClient(Batching|Defect)?Tests)\b

# iio-sensor-proxy's own integration tests against motiond (scripts/check-peer.sh): run by hand,
# with a checkout of its source (PEER_SOURCE, tag 3.9.0); PEER_DAEMON=peer runs them against the
# installed iio-sensor-proxy instead, PEER_TESTS names some tests.
PEER_DAEMON ?= motiond
check-peer:
	$(SWIFT) build --product motiond $(SWIFTFLAGS)
	@scripts/check-peer.sh "$(PEER_SOURCE)" --daemon $(PEER_DAEMON) --motiond .build/debug/motiond $(PEER_TESTS)

# The system tier (scripts/system/check-system.sh): Debian's kernel and a Debian root with
# systemd as PID 1 in QEMU (TCG), the project installed by make install, a uhid HID sensor hub
# for real IIO devices; udev starts motiond and the guest checks it. Caches under
# ~/.cache/motiond-system (first run ~ downloads and a root build; then only the boot).
check-system:
	@scripts/system/check-system.sh

# The test targets of the daemon and its configuration, the D-Bus face, the tools, the
# clients, MotionIIO and the end-to-end tier under ThreadSanitizer; the protocol and core
# targets besides under AddressSanitizer. The test process and every motiond it starts are built
# with the sanitizer (their own build directory), and each writes its reports under
# SANITIZER_REPORTS; any report fails the target. TSAN_TESTS and ASAN_TESTS name test targets
# (^TARGET\., anchored as ROTATE_TESTS is: EndToEndTests has a suite MotionClientTests in
# MotionClientTests.swift).
# One test at a time: a sanitized daemon is several times slower, and the tests' deadlines are
# set for an ordinary build (the motionctl deadline tests time motionctl itself: skipped).
TSAN_TESTS ?= ^(MotionDaemonTests|MotionConfigurationTests|MotionSyncTests|MotionDBusTests|MotionToolSupportTests|MotionClientTests|MotionRotateTests|MotionIIOTests|EndToEndTests)\.
ASAN_TESTS ?= $(TSAN_TESTS)|^(MotionProtocolTests|MotionCoreTests)\.
# Peak-memory bounds mean nothing under a sanitizer's shadow memory (nor a thread stack's resident
# pages: AddressSanitizer keeps locals on a fake stack, nor the executable's resident code that
# leavingClientsCode follows), and wake-up counts nothing
# beside its runtime's own thread (ThreadSanitizer's wakes ten times a second).
# systemd-socket-activate starts motiond with an environment of its own, without the sanitizer's
# options: its reports would go unseen, and LeakSanitizer (off here) fails its exit status.
# A sanitizer takes fatal signals itself (CrashTrace leaves them to it): the deliberate crash of
# CrashTraceTests would be its report.
SANITIZER_SKIP ?= hugeTrace|restIsQuiet|compassRestIsQuiet|leavingClientsCode|MotionCtlDeadlineTests|socketActivation|ThreadStackTests|CrashTraceTests
SANITIZER_REPORTS ?= .build/sanitizer-reports

check-tsan: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan $(SWIFTFLAGS)
	@scripts/run-sanitized.sh thread $(SANITIZER_REPORTS)/tsan '$(TSAN_TESTS)' --no-parallel --skip '$(SANITIZER_SKIP)' $(SWIFTFLAGS)

check-asan: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan $(SWIFTFLAGS)
	@scripts/run-sanitized.sh address $(SANITIZER_REPORTS)/asan '$(ASAN_TESTS)' --no-parallel --skip '$(SANITIZER_SKIP)' $(SWIFTFLAGS)

# Estimator accuracy on the shared BROAD recordings (../shared/datasets/broad), beside VQF.
accuracy: bench-tool vqf-venv
	.build/release/motiond-bench accuracy
	.build/release/motiond-bench accuracy-offline --python $(VQF_VENV)/bin/python3

# VQF 2.1.2 from PyPI in a private environment, the offline accuracy's anchor (offlineVQF, run by
# Benchmarks/accuracy/offline_vqf.py). Made once; without network the attempt says so and
# accuracy-offline leaves VQF's rows out.
VQF_VENV ?= .build/vqf-venv
vqf-venv:
	@test -f $(VQF_VENV)/.vqf-2.1.2 || { python3 -m venv $(VQF_VENV) \
		&& $(VQF_VENV)/bin/pip install --quiet --disable-pip-version-check --retries 1 --timeout 15 vqf==2.1.2 numpy \
		&& touch $(VQF_VENV)/.vqf-2.1.2; } \
		|| echo "offline accuracy: could not install vqf 2.1.2 into $(VQF_VENV) (no network?); VQF's rows are left out"

# Estimator cost per sample (release build).
bench: bench-tool
	.build/release/motiond-bench bench

# The hinge angle and posture on the simulated convertible (issue 18; docs/PERFORMANCE.md).
bench-hinge: bench-tool
	.build/release/motiond-bench hinge-bench

# The daemon under load (docs/PERFORMANCE.md): a private motiond on the simulated IMU with 1,
# 10, 100 and 1000 clients at 100 Hz; latency, drops, CPU and memory per round.
bench-daemon: bench-tool
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motiond-bench daemon-bench

# What the MotionClient library adds: sample-to-handler latency, a second consumer, pulls.
bench-client: bench-tool
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motiond-bench client-bench

# At rest and under load (issue 14): motiond's CPU, wake-ups/s and memory on an emulated desktop
# accelerometer beside iio-sensor-proxy, with 1/10/100 device-motion clients, and batched
# delivery; Benchmarks/README.md. BENCH_POWER_FLAGS: e.g. --window 10 --runs 1 --scenario desktop-rest.
BENCH_POWER_FLAGS ?=
bench-power: build
	@$(DEPS_INSTALL) bench
	python3 Benchmarks/power/bench_power.py --motiond .build/release/motiond $(BENCH_POWER_FLAGS)

# Stripped (INSTALL_STRIP= keeps the symbols, for a package's own dh_strip or a debugger).
INSTALL_STRIP ?= -s
install: build man
	install -Dm755 $(INSTALL_STRIP) .build/release/motiond $(DESTDIR)$(BINDIR)/motiond
	install -Dm755 $(INSTALL_STRIP) .build/release/motionctl $(DESTDIR)$(BINDIR)/motionctl
	ln -sf motionctl $(DESTDIR)$(BINDIR)/motiond-rotate
	install -Dm644 .build/man/motiond.8 $(DESTDIR)$(MANDIR)/man8/motiond.8
	install -Dm644 .build/man/motionctl.1 $(DESTDIR)$(MANDIR)/man1/motionctl.1
	install -Dm644 .build/man/motiond-rotate.1 $(DESTDIR)$(MANDIR)/man1/motiond-rotate.1
	install -Dm644 .build/man/motiond.toml.5 $(DESTDIR)$(MANDIR)/man5/motiond.toml.5
	for c in motiond motionctl motiond-rotate; do \
		install -Dm644 .build/completions/$$c.bash $(DESTDIR)$(BASHCOMPDIR)/$$c && \
		install -Dm644 .build/completions/_$$c $(DESTDIR)$(ZSHCOMPDIR)/_$$c && \
		install -Dm644 .build/completions/$$c.fish $(DESTDIR)$(FISHCOMPDIR)/$$c.fish || exit 1; \
	done
	$(MAKE) install-data

# Everything but the binaries: units, sysusers entry, udev rule, configuration.
install-data:
	install -d $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/motiond.service > $(DESTDIR)$(UNITDIR)/motiond.service
	chmod 644 $(DESTDIR)$(UNITDIR)/motiond.service
	install -d $(DESTDIR)$(PREFIX)/lib/systemd/user
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/motiond-rotate.service > $(DESTDIR)$(PREFIX)/lib/systemd/user/motiond-rotate.service
	chmod 644 $(DESTDIR)$(PREFIX)/lib/systemd/user/motiond-rotate.service
	install -m644 systemd/motiond.socket $(DESTDIR)$(UNITDIR)/motiond.socket
	install -Dm644 systemd/motiond.sysusers $(DESTDIR)$(SYSUSERSDIR)/motiond.conf
	install -m644 udev/70-motiond.rules $(DESTDIR)$(UDEVDIR)/70-motiond.rules
	# The D-Bus face (net.hadess.SensorProxy): who may own the name and call it, and the polkit
	# action for claims. Inert until [dbus] sensor-proxy or the drop-in below turns it on.
	install -Dm644 dbus/net.hadess.SensorProxy.conf $(DESTDIR)$(DBUSPOLICYDIR)/motiond-sensor-proxy.conf
	install -Dm644 dbus/net.hadess.SensorProxy.policy $(DESTDIR)$(POLKITDIR)/motiond.net.hadess.SensorProxy.policy
	install -d $(DESTDIR)$(PREFIX)/share/doc/motiond
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/sensor-proxy.conf > $(DESTDIR)$(PREFIX)/share/doc/motiond/sensor-proxy.conf
	chmod 644 $(DESTDIR)$(PREFIX)/share/doc/motiond/sensor-proxy.conf
	install -Dm644 udev/61-motiond-mount-matrix.hwdb.example $(DESTDIR)$(PREFIX)/share/doc/motiond/61-motiond-mount-matrix.hwdb.example
	install -Dm644 README.md $(DESTDIR)$(PREFIX)/share/doc/motiond/README.md
	install -Dm644 CHANGELOG.md $(DESTDIR)$(PREFIX)/share/doc/motiond/CHANGELOG.md
	# An edited configuration is never overwritten; the shipped one sits beside it.
	install -Dm644 etc/motiond/motiond.toml $(DESTDIR)$(PREFIX)/share/doc/motiond/motiond.toml
	[ -e $(DESTDIR)$(SYSCONFDIR)/motiond/motiond.toml ] || install -Dm644 etc/motiond/motiond.toml $(DESTDIR)$(SYSCONFDIR)/motiond/motiond.toml

# The README's "Replacing iio-sensor-proxy": motiond serves net.hadess.SensorProxy and never runs
# beside iio-sensor-proxy (after `make install`; as root). uninstall-sensor-proxy switches back.
DROPINDIR ?= $(SYSCONFDIR)/systemd/system/motiond.service.d
install-sensor-proxy-dropin:
	install -d $(DESTDIR)$(DROPINDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' systemd/sensor-proxy.conf > $(DESTDIR)$(DROPINDIR)/sensor-proxy.conf
	chmod 644 $(DESTDIR)$(DROPINDIR)/sensor-proxy.conf

install-sensor-proxy: install-sensor-proxy-dropin
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl mask --now iio-sensor-proxy.service; systemctl daemon-reload; \
		systemctl reload dbus.service 2>/dev/null || true; systemctl restart motiond.service; \
	else echo "not on a running systemd: after installing, run systemctl mask --now iio-sensor-proxy.service; systemctl daemon-reload; systemctl restart motiond.service"; fi

# What the motiond-sensor-proxy package adds to motiond's (debian/rules, after make install):
# monitor-sensor (motionctl through a link of that name) and its manual page, and the drop-in
# as the vendor's, beside the unit. Its maintainer scripts do what install-sensor-proxy does
# after it (iio-sensor-proxy is removed by the package's Conflicts, not masked).
install-sensor-proxy-package:
	ln -sf motionctl $(DESTDIR)$(BINDIR)/monitor-sensor
	install -Dm644 .build/man/monitor-sensor.1 $(DESTDIR)$(MANDIR)/man1/monitor-sensor.1
	$(MAKE) install-sensor-proxy-dropin DROPINDIR=$(UNITDIR)/motiond.service.d

uninstall-sensor-proxy:
	rm -f $(DESTDIR)$(DROPINDIR)/sensor-proxy.conf
	rmdir $(DESTDIR)$(DROPINDIR) 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ] && [ -d /run/systemd/system ]; then \
		systemctl daemon-reload; systemctl restart motiond.service; systemctl unmask iio-sensor-proxy.service; \
		udevadm trigger --action=add --subsystem-match=iio; \
	else echo "not on a running systemd: after removing, run systemctl daemon-reload; systemctl restart motiond.service; systemctl unmask iio-sensor-proxy.service"; fi

uninstall:
	rm -f $(DESTDIR)$(MANDIR)/man8/motiond.8 $(DESTDIR)$(MANDIR)/man1/motionctl.1 $(DESTDIR)$(MANDIR)/man1/motiond-rotate.1 $(DESTDIR)$(MANDIR)/man5/motiond.toml.5
	for c in motiond motionctl motiond-rotate; do rm -f $(DESTDIR)$(BASHCOMPDIR)/$$c $(DESTDIR)$(ZSHCOMPDIR)/_$$c $(DESTDIR)$(FISHCOMPDIR)/$$c.fish; done
	rm -f $(DESTDIR)$(BINDIR)/motiond $(DESTDIR)$(BINDIR)/motionctl $(DESTDIR)$(BINDIR)/motiond-rotate $(DESTDIR)$(PREFIX)/lib/systemd/user/motiond-rotate.service $(DESTDIR)$(UNITDIR)/motiond.service $(DESTDIR)$(UNITDIR)/motiond.socket $(DESTDIR)$(SYSUSERSDIR)/motiond.conf $(DESTDIR)$(UDEVDIR)/70-motiond.rules
	rm -f $(DESTDIR)$(DBUSPOLICYDIR)/motiond-sensor-proxy.conf $(DESTDIR)$(POLKITDIR)/motiond.net.hadess.SensorProxy.policy $(DESTDIR)$(PREFIX)/share/doc/motiond/sensor-proxy.conf
	rm -f $(DESTDIR)$(PREFIX)/share/doc/motiond/README.md $(DESTDIR)$(PREFIX)/share/doc/motiond/CHANGELOG.md
	rm -f $(DESTDIR)$(PREFIX)/share/doc/motiond/61-motiond-mount-matrix.hwdb.example $(DESTDIR)$(PREFIX)/share/doc/motiond/motiond.toml
	# $(SYSCONFDIR)/motiond/motiond.toml stays: it is the administrator's.
	rmdir $(DESTDIR)$(PREFIX)/share/doc/motiond 2>/dev/null || true

clean:
	rm -rf .build

# ---- Fuzzing (Fuzz/README.md) ------------------------------------------------------------
# libFuzzer targets for the parsers, in their own package (Fuzz/Package.swift) built with the
# fuzzer and address sanitizers. `make fuzz` runs each for FUZZ_SECONDS, keeping what it
# learns under FUZZ_WORK (not in the tree); `make check-fuzz` replays the committed corpus
# (Fuzz/Corpus/<target>/) and fuzzes each target for FUZZ_CHECK_SECONDS (0: only the replay,
# which make check runs). A crash, hang
# (FUZZ_TIMEOUT seconds for one input) or leak stops the target with a non-zero exit, and
# the input that caused it is left in FUZZ_WORK as <target>-crash-…, -timeout-… or -leak-….
FUZZ_TARGETS       ?= FuzzClientRequest FuzzJSONValue FuzzLineFramer FuzzServerMessage FuzzConfiguration FuzzTraceReader FuzzSysfs
FUZZ_SECONDS       ?= 60
FUZZ_CHECK_SECONDS ?= 10
FUZZ_TIMEOUT       ?= 10
FUZZ_WORK          ?= /tmp/motiond-fuzz
FUZZ_BIN            = Fuzz/.build/debug
# The Swift backtracer would hang under ASan on a crash (libFuzzer reports it instead); the
# suppressions are TOMLKit's own leaks (Fuzz/lsan.supp says which and why).
FUZZ_ENV            = SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp
FUZZ_FLAGS          = -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1
# SwiftPM's --sanitize=fuzzer --sanitize=address hands swiftc two -sanitize= options, of which
# swiftc keeps the last, in an order that varies from build to build: targets came out without
# coverage, or without ASan. --sanitize=fuzzer keeps SwiftPM's fuzzer linking; the combined
# -sanitize= after it wins for Swift; -fsanitize=address adds ASan to C/C++ (TOMLKit's toml++).
# NDEBUG turns off toml++'s assertions, which abort on some malformed TOML (motiond reads its file
# in a child first, Fuzz/README.md) and would end every FuzzConfiguration run there. gold's "Cannot export local
# symbol '__asan_…'" warnings (one per ASan helper) are dropped from the output.
FUZZ_BUILD          = $(SWIFT) build --package-path Fuzz --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address \
                      -Xcc -fsanitize=address -Xcc -DNDEBUG

.PHONY: fuzz check-fuzz fuzz-build

fuzz-build: deps
	@mkdir -p $(FUZZ_WORK)
	@$(FUZZ_BUILD) > $(FUZZ_WORK)/build.log 2>&1; status=$$?; \
		grep -a -v "Cannot export local symbol" $(FUZZ_WORK)/build.log; exit $$status

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		echo "== $$t: $(FUZZ_SECONDS) s, new inputs in $(FUZZ_WORK)/corpus/$$t, log $(FUZZ_WORK)/$$t.log"; \
		mkdir -p $(FUZZ_WORK)/corpus/$$t; \
		$(FUZZ_ENV) $(FUZZ_BIN)/$$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_WORK)/$$t- \
			$(FUZZ_WORK)/corpus/$$t Fuzz/Corpus/$$t > $(FUZZ_WORK)/$$t.log 2>&1; status=$$?; \
		if [ $$status -ne 0 ]; then grep -v "^#[0-9]" $(FUZZ_WORK)/$$t.log; echo "$$t: FAILED (exit $$status)"; exit $$status; fi; \
		grep -E "INITED|DONE|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)" $(FUZZ_WORK)/$$t.log; \
	done

check-fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		if [ "$(FUZZ_CHECK_SECONDS)" = 0 ]; then echo "== $$t: committed corpus"; else echo "== $$t: committed corpus, then $(FUZZ_CHECK_SECONDS) s"; fi; \
		work=$$(mktemp -d $(FUZZ_WORK)/check-$$t-XXXXXX); \
		$(FUZZ_ENV) $(FUZZ_BIN)/$$t $(FUZZ_FLAGS) -runs=0 -artifact_prefix=$$work/ Fuzz/Corpus/$$t > $$work/replay.log 2>&1 \
			|| { cat $$work/replay.log; echo "$$t: the committed corpus fails; input in $$work"; exit 1; }; \
		if [ "$(FUZZ_CHECK_SECONDS)" != 0 ]; then \
		$(FUZZ_ENV) $(FUZZ_BIN)/$$t $(FUZZ_FLAGS) -max_total_time=$(FUZZ_CHECK_SECONDS) -artifact_prefix=$$work/ $$work Fuzz/Corpus/$$t > $$work/fuzz.log 2>&1 \
			|| { cat $$work/fuzz.log; echo "$$t: fuzzing found a failure; input in $$work"; exit 1; }; \
		grep -h "DONE" $$work/fuzz.log; fi; \
		rm -rf $$work; \
	done
