#!/usr/bin/env bash
# Builds static/editor.bundle.js: CodeMirror 6 with a GLSL mode, one
# minified ES module. Installs the pinned npm packages into
# scripts/editor/node_modules first when they are missing or stale.
# Usage: scripts/editor/build.sh   (from anywhere)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/static/editor.bundle.js"

cd "$here"
if ! command -v npm >/dev/null 2>&1; then
    echo "build.sh: npm is not installed; the page will use its plain text area" >&2
    exit 1
fi
if [ -f package-lock.json ]; then
    # npm ci wipes and reinstalls node_modules: do it only when the tree is
    # missing or older than the lock file, so a rebuild works offline.
    if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        npm ci --no-audit --no-fund
    fi
else
    npm install --no-audit --no-fund
fi

./node_modules/.bin/esbuild editor-entry.mjs \
    --bundle --format=esm --minify --target=es2020 \
    --legal-comments=eof --log-level=warning \
    --outfile="$out"

echo "build.sh: wrote $out ($(wc -c <"$out") bytes)"
