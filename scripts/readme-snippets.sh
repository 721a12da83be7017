#!/bin/sh
# The README's Swift code blocks, built as an application outside the client package would
# build them, and run: so the MotionClient section cannot drift from the API.
#
#   scripts/readme-snippets.sh [MOTIOND]     (MOTIOND: default .build/debug/motiond; $SWIFT: swift)
#
# The block that starts with `// swift-tools-version` is the application's Package.swift,
# taken as written but for its path to clients/swift (the README's "../motiond/clients/swift"
# becomes this tree's). Every other block starts with `// Sources/NAME/main.swift`: it is
# written there, and NAME becomes an executable target depending on MotionClient if the
# manifest has none of that name. The application lives in .build/readme-app (kept between
# runs, files rewritten only when they change: rebuilds are incremental) and resolves nothing
# from the network. Then the manifest's own target, the README's first program, runs against
# `motiond --source sim:` on a private socket and must print five device-motion samples and
# exit 0.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
motiond=${1:-$root/.build/debug/motiond}
readme=$root/README.md
app=$root/.build/readme-app
blocks=$app/blocks
readme_path=../motiond/clients/swift

fail() { echo "readme-snippets: $*" >&2; exit 1; }

[ -x "$motiond" ] || fail "no motiond at $motiond (swift build first)"
rm -rf "$blocks"
mkdir -p "$blocks"

# Each ```swift block of the README into blocks/N.swift.
awk -v dir="$blocks" '
    /^```swift[ \t]*$/ { n++; file = dir "/" n ".swift"; inside = 1; printf "" > file; next }
    /^```/ && inside { inside = 0; close(file); next }
    inside { print >> file }
' "$readme"
[ -n "$(ls "$blocks")" ] || fail "no \`\`\`swift block in $readme"

# Writes stdin to $1 only when it differs, so that unchanged files keep their build.
update() {
    mkdir -p "$(dirname "$1")"
    cat > "$1.new"
    if cmp -s "$1.new" "$1"; then rm "$1.new"; else mv "$1.new" "$1"; fi
}

manifest=
programs=
for block in $(ls "$blocks" | sort -n); do
    block=$blocks/$block
    first=$(head -n 1 "$block")
    case $first in
        "// swift-tools-version"*)
            [ -z "$manifest" ] || fail "two Package.swift blocks in $readme"
            manifest=$block
            grep -q "\"$readme_path\"" "$block" || fail "the README's Package.swift does not depend on \"$readme_path\""
            ;;
        "// Sources/"*"/main.swift")
            name=${first#// Sources/}
            name=${name%/main.swift}
            update "$app/Sources/$name/main.swift" < "$block"
            programs="$programs $name"
            ;;
        *) fail "README block \"$first\" is neither a Package.swift nor names its file (// Sources/NAME/main.swift)" ;;
    esac
done
[ -n "$manifest" ] || fail "no Package.swift block (// swift-tools-version) in $readme"

# The manifest's first target is the program that runs.
main=$(sed -n '/\.executableTarget(/,/name:/ s/.*name: "\([^"]*\)".*/\1/p' "$manifest" | head -n 1)
[ -n "$main" ] || fail "the README's Package.swift names no executable target"
{
    sed "s|\"$readme_path\"|\"$root/clients/swift\"|" "$manifest"
    for name in $programs; do
        grep -q "name: \"$name\"" "$manifest" && continue
        printf 'package.targets.append(.executableTarget(name: "%s", dependencies: [.product(name: "MotionClient", package: "swift")]))\n' "$name"
    done
} | update "$app/Package.swift"
# Sources of blocks no longer in the README go.
for dir in "$app"/Sources/*; do
    case " $programs " in *" $(basename "$dir") "*) ;; *) rm -rf "$dir" ;; esac
done

echo "readme-snippets: building$programs in $app"
${SWIFT:-swift} build --package-path "$app"

sock_dir=$(mktemp -d /tmp/motiond-readme-XXXXXX)
"$motiond" --source sim: --socket "$sock_dir/motiond.sock" --no-config --log-level warning &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null; rm -rf "$sock_dir"' EXIT
trap 'exit 130' INT TERM
echo "readme-snippets: running $main against motiond --source sim:"
status=0
MOTIOND_SOCKET=$sock_dir/motiond.sock timeout 120 "$app/.build/debug/$main" > "$app/output" || status=$?
cat "$app/output"
[ "$status" -eq 0 ] || fail "$main exited with status $status"
samples=$(grep -c '^roll .* gravity ' "$app/output" || true)
[ "$samples" -eq 5 ] || fail "$main printed $samples device-motion samples, not 5"
echo "readme-snippets: $main printed 5 device-motion samples and exited 0"
