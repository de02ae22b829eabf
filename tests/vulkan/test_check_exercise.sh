#!/bin/sh
# The check on load at build time: exercise DIR passes butterfly-grade
# --check-exercise (its summary printed), or the test fails with each
# problem the check found.
# usage: test_check_exercise.sh BUTTERFLY_GRADE DIR
set -u
exec "$1" --check-exercise "$2"
