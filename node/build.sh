#!/usr/bin/env bash
# Builds the npm packages of this platform: the `sjlint` binary (the root package) and the
# addon (node/, its own Cargo workspace), copied into node/platforms/<platform>/, then
# `npm pack` of that package and of node/sjlint/ into node/dist/.
#
#   node/build.sh            release builds (what a release publishes)
#   node/build.sh --dev      dev builds, reusing target/ as `cargo test` left it (CI)
#
# CARGO_TARGET_DIR is honoured (default: the repository's target/); SJLINT_BIN names a binary
# already built to pack instead of building one (CI packs the one `cargo test` built). A
# release builds every platform of docs/node.md the same way, with --target and the target's
# toolchain.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=release
dir=release
if [ "${1:-}" = "--dev" ]; then
    profile=dev
    dir=debug
fi
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
platform=linux-x64-gnu
pkg="node/platforms/$platform"

binary="${SJLINT_BIN:-}"
if [ -z "$binary" ]; then
    cargo build --quiet --profile "$profile" --bin sjlint
    binary="$CARGO_TARGET_DIR/$dir/sjlint"
fi
(cd node && cargo build --quiet --profile "$profile")

mkdir -p "$pkg/bin" node/dist
install -m 755 "$binary" "$pkg/bin/sjlint"
install -m 644 "$CARGO_TARGET_DIR/$dir/libsjlint_node.so" "$pkg/sjlint.$platform.node"
# Without their symbols and line tables, the two files pack and install in a fraction of the
# time (the dev binary is 70 MB with them).
if command -v strip >/dev/null; then
    strip "$pkg/bin/sjlint" "$pkg/sjlint.$platform.node"
fi
# The types are generated from the schemas; a stale index.d.ts is not packed.
node node/scripts/gen-types.mjs --check
rm -f node/dist/*.tgz
npm pack --silent --pack-destination node/dist "./$pkg" >/dev/null
npm pack --silent --pack-destination node/dist ./node/sjlint >/dev/null
ls node/dist/*.tgz
