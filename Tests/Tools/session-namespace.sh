#!/bin/sh
# Runs a command (typically motiond) where sd-login sees the login sessions a test describes:
# a private mount namespace with its own tmpfs on /run holding /run/systemd/sessions/ID files in
# systemd-logind's format. A client process belongs to session ID when the test moves it into a
# cgroup named session-ID.scope (sd-login reads /proc/PID/cgroup).
#
# Usage (as root):
#   sh Tests/Tools/session-namespace.sh [--session ID:UID:ACTIVE:REMOTE]... -- COMMAND [ARG]...
#     ACTIVE, REMOTE: 1 or 0
set -eu

# Re-run under `unshare --mount`, which keeps the process id: the parent is then still the
# caller, in the caller's namespace. Nothing is mounted unless this process's mount namespace
# provably differs from its parent's.
if [ "${1:-}" != --in-private-namespace ]; then
    [ "$(id -u)" -eq 0 ] || { echo "session-namespace.sh: must run as root (unshare -m)" >&2; exit 77; }
    exec unshare --mount --propagation private sh "$0" --in-private-namespace "$@"
fi
shift
own=$(readlink /proc/self/ns/mnt 2>/dev/null || true)
caller=$(readlink "/proc/$PPID/ns/mnt" 2>/dev/null || true)
if [ -z "$own" ] || [ -z "$caller" ] || [ "$own" = "$caller" ]; then
    echo "session-namespace.sh: not in a private mount namespace (own '$own', caller's '$caller'); refusing to mount over /run" >&2
    exit 70
fi

mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/systemd/sessions
while [ $# -gt 0 ]; do
    case "$1" in
        --session)
            IFS=: read -r id uid active remote <<SESSION
$2
SESSION
            printf 'UID=%s\nUSER=test%s\nACTIVE=%s\nREMOTE=%s\nSTATE=%s\nTYPE=tty\nCLASS=user\n' \
                "$uid" "$uid" "$active" "$remote" "$([ "$active" = 1 ] && echo active || echo online)" > "/run/systemd/sessions/$id"
            shift 2 ;;
        --) shift; break ;;
        *) echo "session-namespace.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[ $# -gt 0 ] || { echo "session-namespace.sh: no command" >&2; exit 64; }
exec "$@"
