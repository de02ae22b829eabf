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

size_t spirv_strip_source_text(uint32_t *words, size_t nwords)
{
    if (!words || nwords < SPIRV_HEADER_WORDS)
        return nwords;
    /* a first pass only checks the lengths, so that a malformed module is
     * left exactly as it came */
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords;) {
        uint32_t wc = words[at] >> 16;
        if (wc == 0 || wc > nwords - at)
            return nwords;
        at += wc;
    }
    size_t n = SPIRV_HEADER_WORDS;
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords;) {
        uint32_t wc = words[at] >> 16, op = words[at] & 0xffff;
        size_t keep = wc;
        if (op == SpvOpSourceContinued)
            keep = 0;
        else if (op == SpvOpSource && wc > 4)
            keep = 4;   /* language, version, file: the text is the rest */
        if (keep) {
            memmove(words + n, words + at, keep * sizeof *words);
            words[n] = (uint32_t)keep << 16 | op;
            n += keep;
        }
        at += wc;
    }
    return n;
}
