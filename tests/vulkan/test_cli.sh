#!/bin/sh
# butterfly-grade as a user runs it: exit codes, --json, stdin, devices.
set -u
grade=$1
samples=$2
fails=0
passes=0

check() {   # check NAME EXPECTED_RC ACTUAL_RC
    if [ "$2" = "$3" ]; then
        passes=$((passes + 1))
    else
        echo "FAIL: $1: exit $3, expected $2"
        fails=$((fails + 1))
    fi
}

"$grade" "$samples/correct.glsl" >/dev/null; check accepted 0 $?
"$grade" "$samples/wrong_twiddle_sign.glsl" >/dev/null; check wrong 1 $?
"$grade" "$samples/compile_error_line3.glsl" >/dev/null; check compile-error 2 $?
"$grade" "$samples/rejected_version.glsl" >/dev/null; check rejected 2 $?
"$grade" --no-such-option >/dev/null 2>&1; check usage 64 $?
"$grade" /nonexistent/file >/dev/null 2>&1; check missing-file 3 $?
"$grade" --device no-such-device "$samples/correct.glsl" >/dev/null 2>&1; check bad-device 3 $?

"$grade" --exercise butterfly "$samples/wrong_twiddle_sign.glsl" >/dev/null; check exercise-named 1 $?
err=$("$grade" --exercise no_such "$samples/correct.glsl" 2>&1 >/dev/null); check exercise-unknown 64 $?
echo "$err" | grep -q "no exercise 'no_such' is built in: add it to exercises/LIST"; check exercise-unknown-says 0 $?
# --check-exercise reads the folder from disk, as an author runs it from the
# source tree; copies in a scratch folder stand for an author's edits
grade_abs=$(readlink -f "$grade")
root=$(readlink -f "$samples/../..")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
out=$(cd "$root" && "$grade_abs" --check-exercise exercises/butterfly/); check check-exercise 0 $?
echo "$out" | grep -qx 'exercises/butterfly: [0-9]* solutions\? as expected, [0-9]* mistakes\?, reference deterministic'
check check-exercise-summary 0 $?
cp -r "$root/exercises/butterfly" "$scratch/no_such"
sed -i 's/"id": "butterfly"/"id": "no_such"/' "$scratch/no_such/exercise.json"
err=$("$grade" --check-exercise "$scratch/no_such" 2>&1 >/dev/null); check check-exercise-unknown 1 $?
echo "$err" | grep -q "$scratch/no_such: .*add no_such to exercises/LIST and run ninja"
check check-exercise-unknown-says 0 $?
cp -r "$root/exercises/butterfly" "$scratch/butterfly"
sed -i 's/"atol": 0.005/"atol": 0.05/' "$scratch/butterfly/exercise.json"
err=$("$grade" --check-exercise "$scratch/butterfly" 2>&1 >/dev/null); check check-exercise-edited 1 $?
echo "$err" | grep -q "the tolerance differ from the exercise built in: run ninja"
check check-exercise-edited-says 0 $?
sed -i 's/"loop_budget": [0-9]*/"loop_budget": "many"/' "$scratch/butterfly/exercise.json"
err=$("$grade" --check-exercise "$scratch/butterfly" 2>&1 >/dev/null); check check-exercise-bad-field 1 $?
echo "$err" | grep -q "exercise.json: loop_budget: "
check check-exercise-bad-field-says 0 $?
"$grade" --check-exercise "$root/exercises/butterfly" "$samples/correct.glsl" >/dev/null 2>&1
check check-exercise-and-file 64 $?
# no Vulkan driver for the loader to find: not checked (3), which the build
# tells apart from a problem (1)
err=$(env -u VK_ADD_DRIVER_FILES VK_DRIVER_FILES=/nonexistent/icd.json \
      VK_ICD_FILENAMES=/nonexistent/icd.json \
      "$grade" --check-exercise "$root/exercises/butterfly" 2>&1 >/dev/null)
check check-exercise-no-device 3 $?
echo "$err" | grep -q "exercises/butterfly: not checked: no worker is ready"
check check-exercise-no-device-says 0 $?

out=$("$grade" < "$samples/correct.glsl"); check stdin 0 $?
echo "$out" | grep -q '^Verdict: Accepted' ; check report-text 0 $?

out=$("$grade" --json "$samples/wrong_twiddle_sign.glsl")
echo "$out" | python3 -c '
import json, sys
v = json.load(sys.stdin)
assert v["status"] == {"id": 4, "description": "Wrong Answer", "slug": "wrong_answer"}, v["status"]
assert [h["passed"] for h in v["halves"]] == [True, False, False]
assert all(len(h["cells"]) == 16 for h in v["halves"])
assert v["device"]["type"] in ("cpu", "discrete", "integrated", "virtual", "other")
'; check json 0 $?

out=$("$grade" "$samples/wrong_twiddle_sign.glsl")
echo "$out" | grep -q 'i=2 real: expected' ; check report-failing-cells 0 $?

"$grade" --list-devices | grep -q '^0: '; check list-devices 0 $?

echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
