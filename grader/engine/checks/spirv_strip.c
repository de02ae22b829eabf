/* spirv_strip.c - drops the debug instructions of a module. */
#include "engine/checks/spirv_strip.h"

#include <spirv/unified1/spirv.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_module.h"

static bool is_debug(uint32_t op)
{
    switch (op) {
    case SpvOpSource:
    case SpvOpSourceContinued:
    case SpvOpSourceExtension:
    case SpvOpString:
    case SpvOpName:
    case SpvOpMemberName:
    case SpvOpLine:
    case SpvOpNoLine:
    case SpvOpModuleProcessed:
        return true;
    default:
        return false;
    }
}

bool spirv_strip_debug(const uint32_t *words, size_t nwords, uint32_t **out,
                       size_t *out_nwords)
{
    if (!words || nwords < SPIRV_HEADER_WORDS)
        return false;
    uint32_t *copy = malloc(nwords * sizeof *copy);
    if (!copy)
        return false;
    memcpy(copy, words, SPIRV_HEADER_WORDS * sizeof *copy);
    size_t n = SPIRV_HEADER_WORDS;
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords;) {
        uint32_t wc = words[at] >> 16;
        if (wc == 0 || wc > nwords - at) {
            free(copy);
            return false;
        }
        if (!is_debug(words[at] & 0xffff)) {
            memcpy(copy + n, words + at, wc * sizeof *copy);
            n += wc;
        }
        at += wc;
    }
    *out = copy;
    *out_nwords = n;
    return true;
}
