#!/bin/sh
# Checks that a release motiond links its rest path together (scripts/rest-path.order, Makefile
# RELEASEFLAGS): at least nine in ten of the listed functions are still in the binary (else
# the list has gone stale: regenerate it with Benchmarks/power/rest_code_order.sh), and at least
# half of their bytes lie together, within their total size of the middle one (else the linker
# did not order them: the flags were lost; unordered, a quarter do). Not all can be moved: the
# standard library's Swift code and libdispatch come without a section per function (a fifth
# of the bytes in 2026-12). make build runs it, so every release build, the package's too.
#
#   scripts/check-code-order.sh [MOTIOND]   (default .build/release/motiond, with its symbols)
set -eu
export LC_ALL=C
motiond=${1:-.build/release/motiond}
order=$(dirname "$0")/rest-path.order
nm -S --defined-only "$motiond" | awk 'NF == 4 && $3 ~ /^[tTwW]$/ {print ".text." $4, $1, $2}' | sort -k1,1 -u > "${TMPDIR:-/tmp}/code-order.$$"
trap 'rm -f "${TMPDIR:-/tmp}/code-order.$$"' EXIT
grep '^\.text\.' "$order" | sort -u | join - "${TMPDIR:-/tmp}/code-order.$$" | sort -k2,2 | awk -v listed="$(grep '^\.text\.' "$order" | sort -u | wc -l)" '
    function hex(s,   i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }
    { found++; start[found] = hex($2); size[found] = hex($3); total += size[found] }
    END {
        if (found * 10 < listed * 9) {
            printf "check-code-order: only %d of the %d functions of scripts/rest-path.order are in the binary: regenerate it (Benchmarks/power/rest_code_order.sh)\n", found, listed
            exit 1
        }
        # The block: within their total size of the middle one (by address).
        middle = start[int((found + 1) / 2)]
        for (i = 1; i <= found; i++) if (start[i] >= middle - total && start[i] + size[i] <= middle + total) inside += size[i]
        if (inside * 2 < total) {
            printf "check-code-order: of the %d rest-path functions (%d bytes) only %d bytes lie together: the build did not order them (RELEASEFLAGS)\n", found, total, inside
            exit 1
        }
        printf "check-code-order: %d of %d rest-path functions, %d of their %d bytes together\n", found, listed, inside, total
    }'
