#!/bin/sh
# The main job: install what is missing, build (the page's editor bundle
# too), and start the grading server on the default device (lavapipe
# when there is no GPU). It prints its URL; stop it with Ctrl-C.
# Options go to butterfly-server (see --help), e.g. scripts/run.sh --port 9000
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Without the bundle the page falls back to a plain text area.
scripts/editor/build.sh >/dev/null || echo "run.sh: no editor bundle; the page uses a plain text area" >&2
scripts/build.sh >/dev/null
exec build/server/butterfly-server "$@"
