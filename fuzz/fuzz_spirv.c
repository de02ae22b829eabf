/*
 * fuzz_spirv - the SPIR-V gate: spirv_check on any bytes, and for what it
 * accepts the robust-access stage (spirv_robust_apply: our own clamp,
 * spirv_clamp.c, or SPIRV-Tools' pass where ours does not handle the
 * module) and SPIRV-Tools' validator, as grade.c runs them: the stage on a
 * module nothing has validated yet, the validator after it. Checked: msg
 * contracts, that our pass reads anything safely, and that from a valid
 * module the stage, and our pass alone, give a valid one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_clamp.h"
#include "engine/checks/spirv_robust.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char msg[256];
    memset(msg, 'x', sizeof msg);
    bool ok = spirv_check_bytes(data, size, msg, sizeof msg);
    if (!memchr(msg, '\0', sizeof msg))
        abort();
    if (!ok)
        return 0;
    if (size % 4 || size > SPIRV_CHECK_MAX_BYTES)
        abort();
    uint32_t *words = malloc(size ? size : 4);
    if (!words)
        return 0;
    memcpy(words, data, size);
    uint32_t *out = NULL;
    size_t nout = 0;
    char vmsg[320];
    /* grading validates what the driver gets, after the stage, not its
     * input: our pass must read any module the checks accept safely (the
     * sanitizers watch), and where it ran on a valid one its output must
     * validate as well */
    bool valid = spirv_robust_validate(words, size / 4, vmsg, sizeof vmsg);
    memset(msg, 'x', sizeof msg);
    if (spirv_robust_apply(words, size / 4, &out, &nout, msg, sizeof msg)) {
        if (!out || nout < 5 ||
            (valid && !spirv_robust_validate(out, nout, vmsg, sizeof vmsg)))
            abort();
        free(out);
        out = NULL;
    }
    enum spirv_clamp_result r = spirv_clamp_indices(words, size / 4, &out, &nout);
    if (r == SPIRV_CLAMP_DONE &&
        (!out || nout < 5 || (valid && !spirv_robust_validate(out, nout, vmsg, sizeof vmsg))))
        abort();
    free(out);
    if (!memchr(msg, '\0', sizeof msg))
        abort();
    free(words);
    return 0;
}
