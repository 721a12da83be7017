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
SWIFT       ?= swift
SWIFTFLAGS  ?=
# Release binaries carry the Swift runtime (installed ones must not need a toolchain, and the
# daemon's resident memory drops by a fifth: only the pages it uses are loaded).
RELEASEFLAGS ?= --static-swift-stdlib
DEMO_SECONDS ?= 20

.PHONY: all build demo check check-tsan check-asan test deps test-deps install install-data uninstall clean accuracy bench bench-daemon bench-client

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	$(SWIFT) build -c release --product motiond-rotate $(RELEASEFLAGS) $(SWIFTFLAGS)

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
	# The umockdev preload lets hot-plug tests send uevents from the test process; it passes
	# everything through until a test creates a testbed.
	LD_PRELOAD=libumockdev-preload.so.0 $(SWIFT) test --skip-build --skip RotateTests $(SWIFTFLAGS)
	# The compositors (headless sway, Xvfb) run on their own: beside the rest they starve
	# the timing-sensitive hot-plug and socket tests of CPU on a two-core machine.
	$(SWIFT) test --skip-build --filter RotateTests $(SWIFTFLAGS)

test: check

# The daemon, socket and client tests under ThreadSanitizer and AddressSanitizer: the test
# process and every motiond it starts are built with the sanitizer (their own build directory),
# and each writes its reports under SANITIZER_REPORTS; any report fails the target.
# One test at a time: a sanitized daemon is several times slower, and the tests' deadlines are
# set for an ordinary build (the motionctl deadline tests time motionctl itself: left out).
TSAN_TESTS ?= MotionDaemonTests|SocketConcurrencyTests|SocketClientsTests|SocketStreamTests|MotionClientTests|ConfigurationFileTests|MotiondMotionTests|ReplayEndTests|SimulatedSourceTests|ReplaySourceTests
ASAN_TESTS ?= $(TSAN_TESTS)|MotionProtocolTests|MotionCoreTests
# Peak-memory bounds mean nothing under a sanitizer's shadow memory.
SANITIZER_SKIP ?= hugeTrace
SANITIZER_REPORTS ?= .build/sanitizer-reports

check-tsan: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build/tsan $(SWIFTFLAGS)
	@scripts/run-sanitized.sh thread $(SANITIZER_REPORTS)/tsan '$(TSAN_TESTS)' --no-parallel --skip '$(SANITIZER_SKIP)' $(SWIFTFLAGS)

check-asan: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan $(SWIFTFLAGS)
	@scripts/run-sanitized.sh address $(SANITIZER_REPORTS)/asan '$(ASAN_TESTS)' --no-parallel --skip '$(SANITIZER_SKIP)' $(SWIFTFLAGS)

# Estimator accuracy on the shared BROAD recordings (../shared/datasets/broad), beside VQF.
accuracy: deps
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motionctl accuracy

# Estimator cost per sample (release build).
bench: deps
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motionctl bench

# The daemon under load (docs/PERFORMANCE.md): a private motiond on the simulated IMU with 1,
# 10, 100 and 1000 clients at 100 Hz; latency, drops, CPU and memory per round.
bench-daemon: deps
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motionctl daemon-bench

# What the MotionClient library adds: sample-to-handler latency, a second consumer, pulls.
bench-client: deps
	$(SWIFT) build -c release --product motiond $(RELEASEFLAGS) $(SWIFTFLAGS)
	$(SWIFT) build -c release --product motionctl $(RELEASEFLAGS) $(SWIFTFLAGS)
	.build/release/motionctl client-bench

install: build
	install -Dm755 .build/release/motiond $(DESTDIR)$(BINDIR)/motiond
	install -Dm755 .build/release/motionctl $(DESTDIR)$(BINDIR)/motionctl
	install -Dm755 .build/release/motiond-rotate $(DESTDIR)$(BINDIR)/motiond-rotate
	$(MAKE) install-data

# Everything but the binaries: units, sysusers entry, udev rule, configuration, examples.
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
	install -Dm644 udev/61-motiond-mount-matrix.hwdb.example $(DESTDIR)$(PREFIX)/share/doc/motiond/61-motiond-mount-matrix.hwdb.example
	# An edited configuration is never overwritten; the shipped one sits beside it.
	install -Dm644 etc/motiond/motiond.toml $(DESTDIR)$(PREFIX)/share/doc/motiond/motiond.toml
	[ -e $(DESTDIR)$(SYSCONFDIR)/motiond/motiond.toml ] || install -Dm644 etc/motiond/motiond.toml $(DESTDIR)$(SYSCONFDIR)/motiond/motiond.toml

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/motiond $(DESTDIR)$(BINDIR)/motionctl $(DESTDIR)$(BINDIR)/motiond-rotate $(DESTDIR)$(PREFIX)/lib/systemd/user/motiond-rotate.service $(DESTDIR)$(UNITDIR)/motiond.service $(DESTDIR)$(UNITDIR)/motiond.socket $(DESTDIR)$(SYSUSERSDIR)/motiond.conf $(DESTDIR)$(UDEVDIR)/70-motiond.rules
	rm -f $(DESTDIR)$(PREFIX)/share/doc/motiond/61-motiond-mount-matrix.hwdb.example $(DESTDIR)$(PREFIX)/share/doc/motiond/motiond.toml
	# $(SYSCONFDIR)/motiond/motiond.toml stays: it is the administrator's.
	rmdir $(DESTDIR)$(PREFIX)/share/doc/motiond 2>/dev/null || true

clean:
	rm -rf .build
