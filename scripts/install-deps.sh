#!/bin/sh
# Installs the Debian packages the project needs, only those missing.
# Safe to run again; needs root (or sudo) only when something is missing.
set -eu

packages="meson ninja-build pkg-config gcc g++ python3 curl
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  libshaderc-dev glslc glslang-dev spirv-tools spirv-headers
  libjansson-dev libcmocka-dev libmicrohttpd-dev nettle-dev
  librhonabwy-dev liborcania-dev libcurl4-openssl-dev
  libsqlite3-dev libpq-dev
  nodejs npm"

# With BUTTERFLY_TEST_DEPS=1 also what the tests need: the browser test and
# the batch's class report (chromium), the batch's gradebook test (pandas);
# the http suite's OpenAPI check (jsonschema) and metrics check (promtool,
# in prometheus); the deploy suite's reverse proxy (nginx), unit checks
# (systemd-analyze, in systemd) and system call filter (python3-seccomp),
# and its install from a copy of the sources (git); the store_pg suite's
# own PostgreSQL cluster (postgresql). On a machine that runs
# systemd, installing nginx and prometheus also starts their services; the
# tests start their own and need neither.
[ "${BUTTERFLY_TEST_DEPS:-0}" = 1 ] && packages="$packages chromium python3-pandas
  python3-jsonschema prometheus nginx systemd python3-seccomp git postgresql
  python3-jwt python3-cryptography"

missing=""
for p in $packages; do
    # a node or npm from elsewhere (nodesource, nvm) does as well
    case $p in nodejs|npm) command -v "${p%js}" >/dev/null 2>&1 && continue ;; esac
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "installing:$missing" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
