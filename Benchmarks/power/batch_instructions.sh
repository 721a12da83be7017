#!/bin/sh
# Instructions a still buffered batch costs: motiond under callgrind on an emulated st_lsm6dsx
# (Tests/Fixtures/lsm6dsx.umockdev, its buffer fed a still scan every SCAN_MS ms by a umockdev
# script), one orientation client, so the accelerometer rests and is read as a batch every
# 0.35 s. umockdev plays the scans whatever the frequency motiond sets, so SCAN_MS stands for
# the device's rate at rest: 38 (default) for the 26 Hz motiond sets there now (7 scans per
# batch), 20 for the 52 Hz it kept before (17). Counts only inside the buffered reader's steps (a wake-up: the read, the decoding,
# the pipeline's handling of the batch) over --window seconds once at rest, and prints the
# instructions per wake-up. Repeatable where timings are not (the counterpart of
# rest_instructions.sh, which counts a polled reading).
#
#   [SCAN_MS=38] Benchmarks/power/batch_instructions.sh [MOTIOND]   (default .build/release/motiond)
#   KEEP=1 keeps the work directory (its callgrind.out, for callgrind_annotate).
set -eu
motiond=$(realpath "${1:-.build/release/motiond}")
here=$(cd "$(dirname "$0")/../.." && pwd)
window=20
scan_ms=${SCAN_MS:-38}
for tool in valgrind umockdev-run; do
    command -v $tool >/dev/null || { echo "batch_instructions: needs $tool (apt-get install valgrind umockdev)" >&2; exit 2; }
done
work=$(mktemp -d /tmp/batch-instructions-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
# Valgrind 3.19 cannot read the DWARF 5 that Swift writes: a copy without debug information.
cp "$motiond" "$work/motiond" && strip --strip-debug "$work/motiond"
# 60 s of a device lying portrait: raw y 16400 (1 G), kernel timestamps SCAN_MS apart; the
# umockdev script format escapes control bytes as ^ + (byte + 64) and ^ itself as ^`.
python3 - "$work/accel.script" "$scan_ms" <<'PY'
import struct, sys
ms = int(sys.argv[2])
with open(sys.argv[1], "wb") as out:
    for i in range(60_000 // ms):
        scan = struct.pack("<hhh", 0, 16400, 0) + b"\0\0" + struct.pack("<q", 5_000_000_000 + i * ms * 1_000_000)
        escaped = b"".join(b"^`" if b == 0x5E else bytes([0x5E, b + 64]) if b < 32 else bytes([b]) for b in scan)
        out.write(b"r %d " % (300 if i == 0 else ms) + escaped + b"\n")
PY
cat > "$work/client.py" <<'PY'
import socket, sys, time
client = socket.socket(socket.AF_UNIX)
for _ in range(200):
    try:
        client.connect(sys.argv[1])
        break
    except OSError:
        time.sleep(0.1)
client.sendall(b'{"op":"subscribe","id":1,"stream":"orientation"}\n')
time.sleep(float(sys.argv[2]))
PY
cd "$work"
# Instrumented from 12 s on: the daemon started, the client subscribed, the device at rest.
umockdev-run -d "$here/Tests/Fixtures/lsm6dsx.umockdev" -s /dev/iio:device0=accel.script -- sh -c "
  valgrind --tool=callgrind --callgrind-out-file=callgrind.out --compress-strings=no --instr-atstart=no '--toggle-collect=*BufferedReaderC4step*' \
      ./motiond --source local: --sensors accelerometer --socket $work/motiond.sock --no-config 2>daemon.log &
  daemon=\$!
  python3 client.py $work/motiond.sock $((window + 20)) &
  client=\$!
  sleep 12
  callgrind_control -i on \$daemon >/dev/null
  sleep $window
  callgrind_control -i off \$daemon >/dev/null
  kill -INT \$daemon; wait \$daemon || true
  kill \$client 2>/dev/null || true
"
grep -q 'scans per wake-up' daemon.log || { echo "batch_instructions: the accelerometer never rested:" >&2; cat daemon.log >&2; exit 1; }
total=$(awk '/^totals:/ {print $2; exit}' callgrind.out)
steps=$(awk '/^cfn=.*BufferedReaderC4step/ {getline; sub("calls=", ""); n += $1} END {print n + 0}' callgrind.out)
[ "$steps" -gt 0 ] || { echo "batch_instructions: no buffered read counted" >&2; exit 1; }
echo "batched wake-ups: $steps, instructions: $total, per wake-up: $((total / steps))"
