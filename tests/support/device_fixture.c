/* device_fixture.c - the compiler and device of a device test (see the header). */
#include "tests/support/device_fixture.h"

#include <stdio.h>
#include <stdlib.h>

#include "engine/compile/compile.h"
#include "engine/gpu.h"
#include "engine/grade.h"

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

struct grader *device_fixture_grader(void)
{
    struct grader_options o;
    char err[256];
    grader_options_init(&o);
    o.device = getenv("BUTTERFLY_DEVICE");
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g)
        fprintf(stderr, "no grader: %s\n", err);
    return g;
}

struct verdict *device_fixture_grade(void *arg, const struct exercise *e, const char *body,
                                     size_t len)
{
    return grader_grade_exercise(arg, e, body, len);
}
