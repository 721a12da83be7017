#!/bin/sh
# Runs iio-sensor-proxy's own integration tests (tests/integration-test.py of a checkout, tag 3.9.0)
# against motiond — or, with --daemon peer, against the installed iio-sensor-proxy, for comparison.
# The suite is imported as it is and adapted at run time by scripts/peer/run_upstream.py (each
# adaptation justified there); nothing of it is copied into this tree.
# Usage: scripts/check-peer.sh PEER_SOURCE [--daemon motiond|peer] [--motiond PATH] [TEST_NAME...]
#        make check-peer PEER_SOURCE=DIR [PEER_DAEMON=peer] [PEER_TESTS="test_iio_poll_light ..."]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
source=${1:-}
if [ -z "$source" ] || [ ! -f "$source/tests/integration-test.py" ]; then
    cat >&2 <<USAGE
check-peer: needs a checkout of iio-sensor-proxy (PEER_SOURCE=DIR), e.g.
    git clone https://gitlab.freedesktop.org/hadess/iio-sensor-proxy.git /tmp/iio-sensor-proxy
    git -C /tmp/iio-sensor-proxy checkout 3.9.0
    make check-peer PEER_SOURCE=/tmp/iio-sensor-proxy
USAGE
    exit 2
fi
shift
"$here/install-deps.sh" peer
# Debian's python3, which has the suite's modules (gi, dbus, dbusmock, psutil); -B: no byte-code left in
# either tree.
exec /usr/bin/python3 -B "$here/peer/run_upstream.py" --source "$source" "$@"
