#!/bin/sh
# Configures (once) and builds the project into BUILD_DIR (default: build).
set -eu
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build}
[ -f "$build/build.ninja" ] || meson setup "$build" "$@"
ninja -C "$build"
