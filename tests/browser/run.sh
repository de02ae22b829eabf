#!/usr/bin/env bash
# Runs the page's end-to-end test against a running server.
#   BUTTERFLY_URL=http://127.0.0.1:PORT/ tests/browser/run.sh
# Installs what it needs when missing: Debian's chromium (apt-get, as
# root) and playwright-core (npm ci from the lock file). Never downloads a
# browser build of its own.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [ -z "${BUTTERFLY_URL:-}" ]; then
    echo "run.sh: set BUTTERFLY_URL to the server's root URL" >&2
    exit 2
fi

chromium_bin="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$chromium_bin" ]; then
    echo "run.sh: installing chromium with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
fi

cd "$here"
if [ ! -d node_modules/playwright-core ]; then
    # playwright-core ships no browser and downloads none at install.
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi

# BUTTERFLY_E2E: another script of this folder (with_server.py runs records.mjs too)
exec node "${BUTTERFLY_E2E:-e2e.mjs}"
