#!/usr/bin/env bash
# setup.sh - Gradescope runs this once, as root, while it builds the
# autograder's image (Ubuntu): it installs what the grader needs, builds
# butterfly-batch and its worker from butterfly-grader/ beside this file,
# and grades a known-correct kernel, so that an image that cannot grade
# fails here, where the instructor sees why, and not on a student's
# submission. Installs only what is missing; safe to run again.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/butterfly-grader"

packages="meson ninja-build pkg-config gcc g++ python3
  libvulkan-dev mesa-vulkan-drivers libshaderc-dev glslc glslang-dev spirv-tools
  spirv-headers libjansson-dev libcmocka-dev libmicrohttpd-dev nettle-dev"
# Installs those of the packages named that are missing.
install_missing() {
    missing=""
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
            missing="$missing $p"
    done
    [ -z "$missing" ] && return 0
    echo "setup.sh: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086
    apt-get install -y -q --no-install-recommends $missing
}
# shellcheck disable=SC2086
install_missing $packages

# The project needs meson 1.0 or later; Ubuntu 22.04 ships 0.61.
meson_ok() {
    python3 - "$(meson --version 2>/dev/null || echo 0)" <<'PY'
import sys
v = [int(x) for x in (sys.argv[1].split(".") + ["0", "0"])[:2] if x.isdigit()]
sys.exit(0 if v >= [1, 0] else 1)
PY
}
if ! meson_ok; then
    echo "setup.sh: meson $(meson --version 2>/dev/null || echo none) is too old; installing meson>=1.0 with pip"
    install_missing python3-pip
    python3 -m pip install -q 'meson>=1.0' ||
        python3 -m pip install -q --break-system-packages 'meson>=1.0'
    hash -r
fi

# Only the batch and its worker: the server, the tests and the benchmarks
# are not needed to grade.
if [ ! -f "$src/build/build.ninja" ]; then
    meson setup "$src/build" "$src"
fi
ninja -C "$src/build" grader/butterfly-batch grader/butterfly-worker

# Grade a known-correct kernel in a layout like Gradescope's.
check="$(mktemp -d)"
trap 'rm -rf "$check"' EXIT
mkdir -p "$check/submission" "$check/results"
cp "$src/tests/samples/correct.glsl" "$check/submission/kernel.glsl"
AUTOGRADER_ROOT="$check" AUTOGRADER_SOURCE="$here" "$here/run_autograder"
python3 - "$check/results/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["score"] == 9, r["score"]
print("setup.sh: the grader works: a correct kernel gets 9 of 9")
PY
