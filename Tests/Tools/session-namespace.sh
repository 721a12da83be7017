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

. "$(dirname "$0")/private-namespace.sh"
[ "${1:-}" = --in-private-namespace ] || enter_private_namespace "$0" "$@"
shift
require_private_namespace session-namespace.sh "/run"

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
