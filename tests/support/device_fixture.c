/* device_fixture.c - the compiler and device of a device test (see the header). */
#include "tests/support/device_fixture.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/compile/compile.h"
#include "engine/gpu.h"

bool device_fixture_open(struct device_fixture *f)
{
    char err[256] = "the compiler could not start";
    f->compiler = compiler_new();
    f->gpu = f->compiler ? gpu_context_new(getenv("BUTTERFLY_DEVICE"), NULL, NULL, err,
                                           sizeof err)
                         : NULL;
    if (!f->gpu) {
        fprintf(stderr, "setup: %s\n", err);
        device_fixture_close(f);
        return false;
    }
    return true;
}

void device_fixture_close(struct device_fixture *f)
{
    compiler_free(f->compiler);
    gpu_context_free(f->gpu);
    f->compiler = NULL;
    f->gpu = NULL;
}
