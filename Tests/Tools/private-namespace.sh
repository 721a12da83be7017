# Sourced by the *-namespace.sh scripts, which mount over system directories: they must only
# ever do so in a mount namespace of their own.
#
#   . "$(dirname "$0")/private-namespace.sh"
#   [ "${1:-}" = --in-private-namespace ] || enter_private_namespace "$0" "$@"
#   shift
#   require_private_namespace NAME "what it would mount over"
#
# enter_private_namespace re-runs the script under `unshare --mount`, which keeps the process id:
# its parent is then still the caller, in the caller's namespace. require_private_namespace
# exits unless this process's mount namespace provably differs from its parent's (fail closed
# when either cannot be read).

enter_private_namespace() {
    script=$1
    shift
    [ "$(id -u)" -eq 0 ] || { echo "$(basename "$script"): must run as root (unshare -m)" >&2; exit 77; }
    exec unshare --mount --propagation private sh "$script" --in-private-namespace "$@"
}

require_private_namespace() {
    own=$(readlink /proc/self/ns/mnt 2>/dev/null || true)
    caller=$(readlink "/proc/$PPID/ns/mnt" 2>/dev/null || true)
    if [ -z "$own" ] || [ -z "$caller" ] || [ "$own" = "$caller" ]; then
        echo "$1: not in a private mount namespace (own '$own', caller's '$caller'); refusing to mount over $2" >&2
        exit 70
    fi
}
