#!/bin/sh
# Installs the Debian packages the project needs, only those missing.
# Safe to run again; needs root (or sudo) only when something is missing.
set -eu

packages="meson ninja-build pkg-config gcc g++ python3 curl
  libvulkan-dev mesa-vulkan-drivers vulkan-tools
  libshaderc-dev glslc glslang-dev spirv-tools spirv-headers
  libjansson-dev libcmocka-dev libmicrohttpd-dev"

missing=""
for p in $packages; do
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
