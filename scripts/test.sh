#!/bin/sh
# Every test: install what is missing, build, run all suites; then build
# again with AddressSanitizer and UndefinedBehaviorSanitizer and run the
# suites that exercise C code again under them.
set -eu
cd "$(dirname "$0")/.."
BUTTERFLY_TEST_DEPS=1 scripts/install-deps.sh

scripts/editor/build.sh
BUILD_DIR=build scripts/build.sh
meson test -C build --print-errorlogs

# Mesa and the Vulkan loader keep allocations for the life of the process,
# which LeakSanitizer would report as leaks of ours; ASan's other checks
# and UBSan stay on, and halt on the first error.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
BUILD_DIR=build-asan scripts/build.sh -Db_sanitize=address,undefined -Db_lundef=false
meson test -C build-asan --print-errorlogs --no-suite page --no-suite browser
