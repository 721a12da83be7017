#!/bin/sh
# Runs the tests matching FILTER from the sanitizer build in .build/tsan or .build/asan, with
# every process (the test runner and each motiond it starts) writing its sanitizer reports
# into REPORTS; fails when any process reported anything, printing the reports.
# Usage: scripts/run-sanitized.sh thread|address REPORTS FILTER [swift test options]
set -eu
sanitizer=$1 reports=$2 filter=$3
shift 3
case $sanitizer in
    thread) scratch=.build/tsan ;;
    address) scratch=.build/asan ;;
    *) echo "run-sanitized.sh: thread or address, not $sanitizer" >&2; exit 64 ;;
esac
rm -rf "$reports"
mkdir -p "$reports"
reports=$(cd "$reports" && pwd)
# halt_on_error=0: a report does not end the process (a test would only see a crash); the
# files decide. Leak reports are off: the Swift runtime's process-lifetime caches look like
# leaks at exit; heap growth is tested by the connect/disconnect test instead.
export TSAN_OPTIONS="log_path=$reports/report halt_on_error=0 second_deadlock_stack=1${TSAN_OPTIONS:+ $TSAN_OPTIONS}"
# asan.supp: one report about stale shadow on the parked main thread's stack (it says why).
export ASAN_OPTIONS="log_path=$reports/report halt_on_error=0 detect_leaks=0 suppressions=$(cd "$(dirname "$0")" && pwd)/asan.supp${ASAN_OPTIONS:+ $ASAN_OPTIONS}"
status=0
swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" --filter "$filter" "$@" || status=$?
found=$(find "$reports" -type f | sort)
if [ -n "$found" ]; then
    echo "$sanitizer sanitizer reports:" >&2
    for file in $found; do echo "== $file" >&2; cat "$file" >&2; done
    exit 1
fi
echo "$sanitizer sanitizer: no reports"
exit $status
