/* spirv_module.c - the instruction and definition index of a SPIR-V module. */
#include "engine/checks/spirv_module.h"

#include <stdlib.h>
#include <string.h>

/* The SPIR-V headers' table of which opcodes have a result and a result
 * type. It is a plain `inline` definition in the header: this declaration
 * makes this file hold its one external definition (C17 6.7.4). */
#define SPV_ENABLE_UTILITY_CODE
#include <spirv/unified1/spirv.h>
extern inline void SpvHasResultAndType(SpvOp opcode, bool *hasResult, bool *hasResultType);

void spirv_result_positions(uint32_t op, unsigned *type_at, unsigned *result_at)
{
    bool has_result, has_type;
    SpvHasResultAndType((SpvOp)op, &has_result, &has_type);
    *type_at = has_type ? 1 : 0;
    *result_at = has_result ? (has_type ? 2 : 1) : 0;
}

bool spirv_module_at(const struct spirv_module *m, size_t at, struct spirv_ins *ins)
{
    if (at < SPIRV_HEADER_WORDS || at >= m->nwords)
        return false;
    uint32_t wc = m->words[at] >> 16;
    if (wc == 0 || wc > m->nwords - at)
        return false;
    unsigned type_at, result_at;
    ins->w = m->words + at;
    ins->at = at;
    ins->wc = wc;
    ins->op = m->words[at] & 0xffff;
    spirv_result_positions(ins->op, &type_at, &result_at);
    ins->result_type = type_at && type_at < wc ? ins->w[type_at] : 0;
    ins->result = result_at && result_at < wc ? ins->w[result_at] : 0;
    return true;
}

bool spirv_module_index(struct spirv_module *m, const uint32_t *words, size_t nwords)
{
    memset(m, 0, sizeof *m);
    if (!words || nwords < SPIRV_HEADER_WORDS || words[3] == 0)
        return false;
    m->words = words;
    m->nwords = nwords;
    m->bound = words[3];
    /* the bound was checked against the module's length before (spirv_check) */
    m->def = calloc(m->bound, sizeof *m->def);
    if (!m->def)
        return false;
    struct spirv_ins ins;
    size_t at = SPIRV_HEADER_WORDS;
    while (at < nwords) {
        if (!spirv_module_at(m, at, &ins) || ins.result >= m->bound)
            goto fail;
        if (ins.result)
            m->def[ins.result] = at;
        at += ins.wc;
    }
    return true;
fail:
    spirv_module_clear(m);
    return false;
}

void spirv_module_clear(struct spirv_module *m)
{
    free(m->def);
    memset(m, 0, sizeof *m);
}

bool spirv_module_def(const struct spirv_module *m, uint32_t id, struct spirv_ins *ins)
{
    if (id == 0 || id >= m->bound || m->def[id] == 0)
        return false;
    return spirv_module_at(m, m->def[id], ins);
}

bool spirv_module_constant_u32(const struct spirv_module *m, uint32_t id, uint32_t *value)
{
    struct spirv_ins c, t;
    if (!spirv_module_def(m, id, &c) || c.op != SpvOpConstant || c.wc != 4)
        return false;
    if (!spirv_module_def(m, c.result_type, &t) || t.op != SpvOpTypeInt || t.wc < 3 ||
        t.w[2] > 32)
        return false;
    *value = c.w[3];
    return true;
}

int spirv_module_first_line(const struct spirv_module *m,
                            bool (*match)(const struct spirv_module *m,
                                          const struct spirv_ins *ins, void *arg),
                            void *arg)
{
    struct spirv_ins ins;
    bool in_function = false;
    int line = 0;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        switch (ins.op) {
        case SpvOpFunction:
            in_function = true;
            line = 0;
            break;
        case SpvOpFunctionEnd:
            in_function = false;
            break;
        case SpvOpLabel:
        case SpvOpNoLine:
            line = 0;
            break;
        case SpvOpLine:
            if (ins.wc >= 4)
                line = (int)ins.w[2];
            break;
        default:
            if (in_function && line > 0 && match(m, &ins, arg))
                return line;
            break;
        }
    }
    return 0;
}
