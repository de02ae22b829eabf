#!/bin/sh
# Builds the libFuzzer targets in fuzz/ with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer), replays every input in fuzz/regressions/ (a
# crash found once must stay fixed), then fuzzes each target for a bounded
# time. Working corpora and crash artifacts go to build-fuzz/; a summary
# (executions, coverage, crashes) to build-fuzz/summary.txt.
#
# usage: scripts/fuzz.sh [SECONDS_PER_TARGET [TARGET...]]
#        (default 60 s each; targets: source_check compile_log frame
#        request verdict_json spirv csv exercise)
set -eu
cd "$(dirname "$0")/.."
SECS=${1:-60}
[ $# -gt 0 ] && shift
TARGETS=${*:-source_check compile_log frame request verdict_json spirv csv exercise}
OUT=build-fuzz

find_tool() {
    for t in "$@"; do
        if command -v "$t" >/dev/null 2>&1; then command -v "$t"; return; fi
    done
}
have_fuzzer_runtime() {
    [ -n "${CC:-}" ] && echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' |
        "$CC" -x c - -fsanitize=fuzzer -o /dev/null >/dev/null 2>&1
}
CC=$(find_tool clang-14 clang)
if ! have_fuzzer_runtime; then
    echo "fuzz.sh: installing clang and its fuzzer runtime" >&2
    SUDO=; [ "$(id -u)" -ne 0 ] && SUDO=sudo
    $SUDO apt-get update -q && $SUDO apt-get install -y -q clang libclang-rt-14-dev
    CC=$(find_tool clang-14 clang)
    have_fuzzer_runtime || { echo "fuzz.sh: clang cannot build fuzzers" >&2; exit 1; }
fi
CXX=$(find_tool clang++-14 clang++)

# --- build: meson's fuzz configuration (-Dfuzz=true) builds each target
# against the libraries it fuzzes, with ASan and UBSan
if [ ! -f "$OUT/build.ninja" ]; then
    CC="$CC" CXX="$CXX" meson setup "$OUT" -Dfuzz=true -Db_sanitize=address,undefined \
        -Db_lundef=false -Dbuildtype=debugoptimized >/dev/null
fi
mkdir -p "$OUT/artifacts"
ninja -C "$OUT" $(for t in $TARGETS; do printf 'fuzz/fuzz_%s ' "$t"; done) fuzz/make_seeds

# --- seeds: committed ones, plus inputs made from the repository's own data
for t in $TARGETS; do mkdir -p "$OUT/corpus/$t"; done
seed() { [ -d "$OUT/corpus/$1" ] && cp "$2" "$OUT/corpus/$1/$3" 2>/dev/null || true; }
for f in tests/samples/*.glsl tests/samples/mistakes/*.glsl tests/hostile/bodies/*.glsl; do
    [ -f "$f" ] && [ "$(wc -c < "$f")" -le 4096 ] && seed source_check "$f" "$(basename "$f")"
done
for f in tests/page/verdict-*.json; do seed verdict_json "$f" "$(basename "$f")"; done
for f in exercises/*/exercise.json; do seed exercise "$f" "$(basename "$(dirname "$f")").json"; done
if [ -d "$OUT/corpus/request" ]; then   # first byte % 3: 0 a JSON body, 1 a URI, 2 a header
    printf '\001/static/index.html' > "$OUT/corpus/request/uri-static"
    printf '\001/api/tasks/butterfly/submissions?format=text' > "$OUT/corpus/request/uri-submit"
    printf '\001/static/%%2e%%2e/README.md%%00.css' > "$OUT/corpus/request/uri-escapes"
    printf '\000{"source": "return 0.0;\\n"}' > "$OUT/corpus/request/json-source"
    printf '\00210.1.2.3, "[2001:db8::17]:4711", 127.0.0.1' > "$OUT/corpus/request/forwarded-for"
    printf '\002for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"' > "$OUT/corpus/request/forwarded"
fi
if [ -d "$OUT/corpus/csv" ]; then   # first byte: delimiter (bit 0) and the reader's bounds
    printf '\006id,source\r\nalice,"a, ""b""\r\nc"\r\nbob,plain\n' > "$OUT/corpus/csv/export"
    printf '\007\357\273\277Student;ID;SIS User ID;SIS Login ID;Section\r\n    Points Possible;;;;\r\n"Doe, Jane";1;S1;jdoe;"A;B"\r\n' \
        > "$OUT/corpus/csv/roster-semicolons"
    printf '\030a,"open\r\nb,c\rd,e\n\n"x"y,=1+2,-3\n' > "$OUT/corpus/csv/odd"
fi
case " $TARGETS " in *" spirv "*)
    ASAN_OPTIONS=detect_leaks=0 "$OUT/fuzz/make_seeds" "$OUT/corpus/spirv" tests/samples/*.glsl
esac

# --- regressions, then fuzzing
maxlen() {
    case $1 in source_check) echo 4096 ;; frame) echo 65536 ;; *) echo 16384 ;; esac
}
: > "$OUT/summary.txt"
status=0
for t in $TARGETS; do
    seeds=
    [ -d "fuzz/seeds/$t" ] && seeds="fuzz/seeds/$t"
    if [ -d "fuzz/regressions/$t" ] && [ -n "$(ls "fuzz/regressions/$t")" ]; then
        echo "== $t: regressions"
        leaks=1; [ "$t" = source_check ] && leaks=0
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$leaks" \
        "$OUT/fuzz/fuzz_$t" fuzz/regressions/$t/* || { echo "== $t: a regression input fails" >&2; status=1; }
    fi
    echo "== $t: fuzzing for $SECS s"
    log="$OUT/fuzz_$t.log"
    rc=0
    # glslang's own preprocessor (the oracle of source_check) leaks on some
    # bodies: not ours, and a worker is recycled after 1000 jobs anyway
    leaks=1; [ "$t" = source_check ] && leaks=0
    dict=; [ -f "fuzz/$t.dict" ] && dict="-dict=fuzz/$t.dict"
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=$leaks" \
    "$OUT/fuzz/fuzz_$t" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=4096 -detect_leaks=$leaks \
        -max_len="$(maxlen "$t")" -print_final_stats=1 $dict \
        -artifact_prefix="$OUT/artifacts/$t-" "$OUT/corpus/$t" $seeds > "$log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    files=$(ls "$OUT/corpus/$t" | wc -l)
    if [ "$rc" -eq 0 ]; then result="no crash"; else result="CRASH (exit $rc, see $log)"; status=1; fi
    printf '%-13s %6s s %10s runs  cov %6s  corpus %5s  %s\n' "$t" "$SECS" "${runs:-?}" \
        "${cov:-?}" "$files" "$result" | tee -a "$OUT/summary.txt"
done
echo "fuzz.sh: summary in $OUT/summary.txt; crash inputs (if any) in $OUT/artifacts/"
exit $status
