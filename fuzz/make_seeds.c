/*
 * make_seeds - writes starting inputs for fuzz_spirv: each sample body of
 * tests/samples compiled into the harness, as shaderc returns it.
 *
 * usage: make_seeds OUT_DIR BODY...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/compile/compile.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_seeds OUT_DIR BODY...\n");
        return 64;
    }
    struct compiler *c = compiler_new();
    if (!c)
        return 1;
    int written = 0;
    for (int i = 2; i < argc; i++) {
        FILE *in = fopen(argv[i], "rb");
        if (!in)
            continue;
        static char body[70000];
        size_t len = fread(body, 1, sizeof body, in);
        fclose(in);
        struct compile_result cr;
        if (!compiler_compile(c, body, len, &cr))
            continue;
        if (cr.ok) {
            const char *base = strrchr(argv[i], '/');
            char path[1024];
            snprintf(path, sizeof path, "%s/%s.spv", argv[1], base ? base + 1 : argv[i]);
            FILE *out = fopen(path, "wb");
            if (out) {
                fwrite(cr.spirv, 4, cr.nwords, out);
                fclose(out);
                written++;
            }
        }
        compile_result_clear(&cr);
    }
    compiler_free(c);
    printf("%d SPIR-V seeds in %s\n", written, argv[1]);
    return 0;
}
