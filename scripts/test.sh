#!/bin/sh
# Every test: install what is missing, build, run all suites; then build
# again with AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer and run the suites that exercise C code again under them.
set -eu
cd "$(dirname "$0")/.."
BUTTERFLY_TEST_DEPS=1 scripts/install-deps.sh

scripts/editor/build.sh
BUILD_DIR=build scripts/build.sh
meson test -C build --print-errorlogs

# AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer, halting
# on the first error. The suites that load no Vulkan driver run with no
# leak suppressed at all; the rest suppress only Mesa's, the loader's and
# glslang's own lifetime allocations (scripts/lsan-mesa.supp), never ours.
# golden grades the bodies vulkan and mutation grade, for minutes: it runs
# in the plain build only.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
BUILD_DIR=build-asan scripts/build.sh -Db_sanitize=address,undefined -Db_lundef=false
meson test -C build-asan --print-errorlogs --suite unit
LSAN_OPTIONS=suppressions=$PWD/scripts/lsan-mesa.supp:print_suppressions=0 \
    meson test -C build-asan --print-errorlogs --no-suite unit --no-suite page --no-suite browser --no-suite golden
