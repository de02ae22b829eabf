#!/bin/sh
# The HTTP server, the batch, the CLI and the admin tool never run student code, so they
# must not load or contain the GPU stack: no libvulkan in `ldd`, and none
# of shaderc's, glslang's, SPIRV-Tools' or Vulkan's symbols linked in
# statically. The worker, which does grade, must have them (else this test
# would pass on an empty pattern).
# usage: test_link.sh WORKER PROGRAM...
set -u
pattern='libvulkan|libshaderc|libglslang|libSPIRV'
symbols='shaderc_compile|glslang::|spvtools::|vkCreateInstance'
fail=0
worker=$1
shift
if ! nm -C "$worker" | grep -Eq "$symbols"; then
    echo "FAIL: $worker has none of the GPU stack's symbols: the check itself is broken"
    fail=1
fi
for prog in "$@"; do
    name=$(basename "$prog")
    libs=$(ldd "$prog" | grep -E "$pattern")
    syms=$(nm -C "$prog" | grep -E "$symbols" | head -3)
    if [ -n "$libs" ] || [ -n "$syms" ]; then
        echo "FAIL: $name links the GPU stack:"
        printf '%s\n%s\n' "$libs" "$syms"
        fail=1
    else
        echo "ok: $name links no Vulkan, shaderc, glslang or SPIRV-Tools"
    fi
done
exit $fail
