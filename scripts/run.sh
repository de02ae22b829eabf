#!/bin/sh
# The main job: install what is missing, build, and grade the example
# kernel on the default device (lavapipe when there is no GPU).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh >/dev/null
exec build/grader/butterfly-grade "${@:-tests/samples/correct.glsl}"
