/*
 * spirv_clamp.c - every access-chain index clamped into range, over the
 * word stream (the contract is in spirv_clamp.h).
 *
 * Two walks: the first plans (what each index becomes, which constants
 * are new, which ids they take), the second writes the module once with
 * the new constants at the end of the globals and each clamp just before
 * its access chain. Nothing is written until everything is known to be a
 * shape this file handles, so "not handled" never leaves half a rewrite.
 */
#include "engine/checks/spirv_clamp.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <spirv/unified1/GLSL.std.450.h>
#include <spirv/unified1/spirv.h>

#include "engine/checks/spirv_module.h"

/* SPIR-V's universal limit on the id bound: taking ids past it would make
 * the module invalid. Each index takes at most three new ids (two bounds
 * and a clamp) and has a word of its own, so a module whose bound plus
 * three ids a word stays under it never runs out. */
#define ID_BOUND_LIMIT 0x3FFFFFu
#define EXT_INST_WORDS 8u   /* OpExtInst type id set SClamp x lo hi */
#define CONSTANT_WORDS 4u   /* OpConstant type id value */

/* One index operand of one access chain that changes. */
struct index_edit {
    size_t at;            /* the access chain's word offset */
    uint32_t pos;         /* the index's word in it */
    uint32_t id;          /* its new value */
    uint32_t clamp_type;  /* not 0: id = SClamp(x, zero, max), of this type */
    uint32_t x, zero, max;
};

/* A 32-bit integer OpConstant, the module's own or one this pass adds. */
struct int_constant {
    uint32_t type, value, id;
};

struct plan {
    const struct spirv_module *m;
    uint32_t glsl;          /* the GLSL.std.450 import */
    uint32_t int_type;      /* OpTypeInt 32 1 */
    uint32_t next_id;
    size_t first_function;  /* word offset of the first OpFunction */
    struct index_edit *edits;
    size_t nedits, edits_cap;
    struct int_constant *consts;
    size_t nconsts, consts_cap, first_new;   /* consts[first_new..] are new */
    size_t nclamps;
};

static bool grow(void **array, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t want = *cap ? 2 * *cap : 16;
    void *p = realloc(*array, want * size);
    if (!p)
        return false;
    *array = p;
    *cap = want;
    return true;
}

/* The width and signedness of an OpTypeInt id; false for any other id. */
static bool int_type_of(const struct spirv_module *m, uint32_t type, uint32_t *width,
                        bool *is_signed)
{
    struct spirv_ins t;
    if (!spirv_module_def(m, type, &t) || t.op != SpvOpTypeInt || t.wc != 4)
        return false;
    *width = t.w[2];
    *is_signed = t.w[3] != 0;
    return true;
}

/* The id of the constant `value` of `type`: the module's own if it has one
 * (SPIRV-Tools' constant manager reuses it too), else a new one. 0 when
 * out of memory. */
static uint32_t constant(struct plan *p, uint32_t type, uint32_t value)
{
    for (size_t k = 0; k < p->nconsts; k++)
        if (p->consts[k].type == type && p->consts[k].value == value)
            return p->consts[k].id;
    if (!grow((void **)&p->consts, &p->consts_cap, p->nconsts, sizeof *p->consts))
        return 0;
    p->consts[p->nconsts++] = (struct int_constant){type, value, p->next_id};
    return p->next_id++;
}

static bool add_edit(struct plan *p, struct index_edit e)
{
    if (!grow((void **)&p->edits, &p->edits_cap, p->nedits, sizeof *p->edits))
        return false;
    p->edits[p->nedits++] = e;
    return true;
}

static bool is_spec_constant(uint32_t op)
{
    return op == SpvOpSpecConstantTrue || op == SpvOpSpecConstantFalse ||
           op == SpvOpSpecConstant || op == SpvOpSpecConstantComposite ||
           op == SpvOpSpecConstantOp;
}

/*
 * The index at word `pos` of the access chain at `at`, into something of
 * `count` elements (a literal, or an OpConstant's value). As the pass:
 * indices are signed, so the bound is capped at INT32_MAX; a constant is
 * judged as it stands, anything else is clamped at run time.
 */
static enum spirv_clamp_result clamp_to_count(struct plan *p, size_t at, uint32_t pos,
                                              uint32_t index, uint32_t count)
{
    struct spirv_ins def;
    uint32_t width, id;
    bool is_signed;
    if (!spirv_module_def(p->m, index, &def) ||
        !int_type_of(p->m, def.result_type, &width, &is_signed) || width != 32 ||
        is_spec_constant(def.op))
        return SPIRV_CLAMP_NOT_HANDLED;
    uint32_t type = def.result_type;
    /* A null index is 0, in range of anything. (SPIRV-Tools' pass takes it
     * for a constant, then reads it as an integer one and crashes: this
     * pass is the only one that can clamp it, so it does not fall back.) */
    bool null = def.op == SpvOpConstantNull;
    if (count <= 1) {   /* one element: whatever the index, it is 0 */
        if (!(id = constant(p, type, 0)))
            return SPIRV_CLAMP_NO_MEMORY;
        if (id != index && !add_edit(p, (struct index_edit){.at = at, .pos = pos, .id = id}))
            return SPIRV_CLAMP_NO_MEMORY;
        return SPIRV_CLAMP_DONE;
    }
    uint32_t max = count - 1 > INT32_MAX ? (uint32_t)INT32_MAX : count - 1;
    if (def.op == SpvOpConstant || null) {
        if (!null && def.wc != 4)
            return SPIRV_CLAMP_NOT_HANDLED;
        int32_t value = null ? 0 : (int32_t)def.w[3];
        if (value >= 0 && (uint32_t)value <= max)
            return SPIRV_CLAMP_DONE;   /* in range: left as it is */
        /* below: 0 of the index's own type; above: the last element, as
         * the pass writes it, a signed 32-bit constant */
        id = value < 0 ? constant(p, type, 0) : constant(p, p->int_type, max);
        if (!id || !add_edit(p, (struct index_edit){.at = at, .pos = pos, .id = id}))
            return SPIRV_CLAMP_NO_MEMORY;
        return SPIRV_CLAMP_DONE;
    }
    uint32_t zero = constant(p, p->int_type, 0);
    uint32_t top = zero ? constant(p, p->int_type, max) : 0;
    if (!top)
        return SPIRV_CLAMP_NO_MEMORY;
    struct index_edit e = {.at = at, .pos = pos, .id = p->next_id++, .clamp_type = type,
                           .x = index, .zero = zero, .max = top};
    if (!add_edit(p, e))
        return SPIRV_CLAMP_NO_MEMORY;
    p->nclamps++;
    return SPIRV_CLAMP_DONE;
}

/* Plans every index of one access chain, walking its type from the base
 * pointer's pointee down, one index at a time. */
static enum spirv_clamp_result plan_access_chain(struct plan *p, const struct spirv_ins *ac)
{
    struct spirv_ins base, ptr, type;
    if (ac->wc < 4 || !spirv_module_def(p->m, ac->w[3], &base) ||
        !spirv_module_def(p->m, base.result_type, &ptr) || ptr.op != SpvOpTypePointer ||
        ptr.wc != 4)
        return SPIRV_CLAMP_NOT_HANDLED;
    uint32_t pointee = ptr.w[3];
    for (uint32_t pos = 4; pos < ac->wc; pos++) {
        uint32_t index = ac->w[pos], count;
        enum spirv_clamp_result r;
        if (!spirv_module_def(p->m, pointee, &type))
            return SPIRV_CLAMP_NOT_HANDLED;
        switch (type.op) {
        case SpvOpTypeVector:   /* component count */
        case SpvOpTypeMatrix:   /* column count */
            if (type.wc != 4)
                return SPIRV_CLAMP_NOT_HANDLED;
            if ((r = clamp_to_count(p, ac->at, pos, index, type.w[3])) != SPIRV_CLAMP_DONE)
                return r;
            pointee = type.w[2];
            break;
        case SpvOpTypeArray:    /* a specialisation-constant length is not ours */
            if (type.wc != 4 || !spirv_module_constant_u32(p->m, type.w[3], &count))
                return SPIRV_CLAMP_NOT_HANDLED;
            if ((r = clamp_to_count(p, ac->at, pos, index, count)) != SPIRV_CLAMP_DONE)
                return r;
            pointee = type.w[2];
            break;
        case SpvOpTypeStruct: {
            /* a member index is a constant the validator checked; the
             * pass leaves it as it is */
            struct spirv_ins c;
            uint32_t width;
            bool is_signed;
            if (!spirv_module_def(p->m, index, &c) || c.op != SpvOpConstant || c.wc != 4 ||
                !int_type_of(p->m, c.result_type, &width, &is_signed) || width != 32)
                return SPIRV_CLAMP_NOT_HANDLED;
            int32_t member = (int32_t)c.w[3];
            if (member < 0 || (uint32_t)member >= type.wc - 2)
                return SPIRV_CLAMP_NOT_HANDLED;
            pointee = type.w[2 + member];
            break;
        }
        default:                /* a runtime array, or anything else */
            return SPIRV_CLAMP_NOT_HANDLED;
        }
    }
    return SPIRV_CLAMP_DONE;
}

static bool is_glsl_import(const struct spirv_ins *ins)
{
    static const char name[] = "GLSL.std.450";   /* 13 bytes with its NUL: 4 words */
    return ins->wc == 2 + (sizeof name + 3) / 4 &&
           memcmp(ins->w + 2, name, sizeof name) == 0;
}

/*
 * The module-wide facts: the addressing model and capabilities this pass
 * can stand behind, the GLSL.std.450 import, the signed int type, the
 * 32-bit integer constants, the first function; the entry points' functions
 * go into `reach` and `work`.
 */
static enum spirv_clamp_result scan_globals(struct plan *p, unsigned char *reach,
                                            uint32_t *work, size_t *nwork)
{
    const struct spirv_module *m = p->m;
    struct spirv_ins ins;
    bool shader = false, logical = false;
    size_t at;
    for (at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        uint32_t width;
        bool is_signed;
        switch (ins.op) {
        case SpvOpCapability:
            if (ins.wc < 2)
                return SPIRV_CLAMP_NOT_HANDLED;
            switch (ins.w[1]) {
            case SpvCapabilityShader: shader = true; break;
            case SpvCapabilityAddresses:
            case SpvCapabilityLinkage:   /* exported functions are roots too */
            case SpvCapabilityKernel:
            case SpvCapabilityVariablePointers:
            case SpvCapabilityVariablePointersStorageBuffer:
            case SpvCapabilityRuntimeDescriptorArray:
            case SpvCapabilityPhysicalStorageBufferAddresses:
            case SpvCapabilityInt64:
            case SpvCapabilityInt16:
            case SpvCapabilityInt8:
                return SPIRV_CLAMP_NOT_HANDLED;
            default: break;
            }
            break;
        case SpvOpExtInstImport:
            if (!p->glsl && is_glsl_import(&ins))
                p->glsl = ins.result;
            break;
        case SpvOpMemoryModel:
            logical = ins.wc >= 2 && ins.w[1] == SpvAddressingModelLogical;
            break;
        case SpvOpEntryPoint:
            if (ins.wc < 3 || ins.w[2] >= m->bound)
                return SPIRV_CLAMP_NOT_HANDLED;
            if (!reach[ins.w[2]]) {
                reach[ins.w[2]] = 1;
                work[(*nwork)++] = ins.w[2];
            }
            break;
        case SpvOpTypeInt:
            if (ins.wc == 4 && ins.w[2] == 32 && ins.w[3] == 1)
                p->int_type = ins.result;
            break;
        case SpvOpConstant:
            if (ins.wc == 4 && int_type_of(m, ins.result_type, &width, &is_signed) &&
                width == 32) {
                if (!grow((void **)&p->consts, &p->consts_cap, p->nconsts, sizeof *p->consts))
                    return SPIRV_CLAMP_NO_MEMORY;
                p->consts[p->nconsts++] =
                    (struct int_constant){ins.result_type, ins.w[3], ins.result};
            }
            break;
        default:
            break;
        }
        if (ins.op == SpvOpFunction)
            break;
    }
    p->first_function = at < m->nwords ? at : m->nwords;
    p->first_new = p->nconsts;
    if (!shader || !logical || !p->glsl || !p->int_type)
        return SPIRV_CLAMP_NOT_HANDLED;
    return SPIRV_CLAMP_DONE;
}

/* Marks in `reach` every function an entry point calls, directly or not:
 * the pass, too, visits only the reachable call tree. */
static bool mark_reachable(const struct spirv_module *m, unsigned char *reach, uint32_t *work,
                           size_t nwork)
{
    struct spirv_ins ins;
    while (nwork > 0) {
        uint32_t fn = work[--nwork];
        if (!spirv_module_def(m, fn, &ins) || ins.op != SpvOpFunction)
            return false;
        for (size_t at = ins.at + ins.wc; spirv_module_at(m, at, &ins); at += ins.wc) {
            if (ins.op == SpvOpFunctionEnd)
                break;
            if (ins.op == SpvOpFunctionCall && ins.wc >= 4 && ins.w[3] < m->bound &&
                !reach[ins.w[3]]) {
                reach[ins.w[3]] = 1;
                work[nwork++] = ins.w[3];
            }
        }
    }
    return true;
}

/* Plans every access chain of every reachable function, in module order. */
static enum spirv_clamp_result plan_functions(struct plan *p, const unsigned char *reach)
{
    struct spirv_ins ins;
    bool live = false;
    for (size_t at = p->first_function; spirv_module_at(p->m, at, &ins); at += ins.wc) {
        enum spirv_clamp_result r;
        switch (ins.op) {
        case SpvOpFunction:
            live = reach[ins.result] != 0;
            break;
        case SpvOpFunctionEnd:
            live = false;
            break;
        case SpvOpPtrAccessChain:
        case SpvOpInBoundsPtrAccessChain:
            return SPIRV_CLAMP_NOT_HANDLED;
        case SpvOpAccessChain:
        case SpvOpInBoundsAccessChain:
            if (live && (r = plan_access_chain(p, &ins)) != SPIRV_CLAMP_DONE)
                return r;
            break;
        default:
            break;
        }
    }
    return SPIRV_CLAMP_DONE;
}

/* Writes the planned module: the new constants before the first function,
 * each clamp before its access chain, the edited indices in it. */
static uint32_t *write_module(const struct plan *p, size_t *out_nwords)
{
    const struct spirv_module *m = p->m;
    size_t nnew = p->nconsts - p->first_new;
    size_t n = m->nwords + CONSTANT_WORDS * nnew + EXT_INST_WORDS * p->nclamps;
    uint32_t *out = malloc(n * sizeof *out);
    if (!out)
        return NULL;
    size_t o = p->first_function;
    memcpy(out, m->words, o * sizeof *out);
    out[3] = p->next_id;
    for (size_t k = p->first_new; k < p->nconsts; k++) {
        out[o++] = CONSTANT_WORDS << 16 | SpvOpConstant;
        out[o++] = p->consts[k].type;
        out[o++] = p->consts[k].id;
        out[o++] = p->consts[k].value;
    }
    size_t e = 0, at = p->first_function;
    while (at < m->nwords) {
        uint32_t wc = m->words[at] >> 16;   /* the plan walked these lengths */
        size_t first = e;
        for (; e < p->nedits && p->edits[e].at == at; e++) {
            const struct index_edit *d = &p->edits[e];
            if (!d->clamp_type)
                continue;
            uint32_t clamp[EXT_INST_WORDS] = {EXT_INST_WORDS << 16 | SpvOpExtInst,
                                             d->clamp_type, d->id, p->glsl, GLSLstd450SClamp,
                                             d->x, d->zero, d->max};
            memcpy(out + o, clamp, sizeof clamp);
            o += EXT_INST_WORDS;
        }
        memcpy(out + o, m->words + at, wc * sizeof *out);
        for (size_t k = first; k < e; k++)
            out[o + p->edits[k].pos] = p->edits[k].id;
        o += wc;
        at += wc;
    }
    *out_nwords = o;
    return out;
}

enum spirv_clamp_result spirv_clamp_indices(const uint32_t *words, size_t nwords,
                                            uint32_t **out, size_t *out_nwords)
{
    struct spirv_module m;
    struct plan p = {.m = &m};
    unsigned char *reach = NULL;
    uint32_t *work = NULL;
    size_t nwork = 0;
    enum spirv_clamp_result r = SPIRV_CLAMP_NOT_HANDLED;

    if (!out || !out_nwords || !spirv_module_index(&m, words, nwords))
        return SPIRV_CLAMP_NOT_HANDLED;
    if ((uint64_t)m.bound + 3 * (uint64_t)nwords > ID_BOUND_LIMIT) {
        spirv_module_clear(&m);
        return SPIRV_CLAMP_NOT_HANDLED;
    }
    p.next_id = m.bound;
    reach = calloc(m.bound, 1);
    work = malloc(m.bound * sizeof *work);
    if (!reach || !work) {
        r = SPIRV_CLAMP_NO_MEMORY;
        goto done;
    }
    if ((r = scan_globals(&p, reach, work, &nwork)) != SPIRV_CLAMP_DONE)
        goto done;
    if (!mark_reachable(&m, reach, work, nwork)) {
        r = SPIRV_CLAMP_NOT_HANDLED;
        goto done;
    }
    if ((r = plan_functions(&p, reach)) != SPIRV_CLAMP_DONE)
        goto done;
    uint32_t *result = write_module(&p, out_nwords);
    if (!result) {
        r = SPIRV_CLAMP_NO_MEMORY;
        goto done;
    }
    *out = result;
done:
    free(p.edits);
    free(p.consts);
    free(reach);
    free(work);
    spirv_module_clear(&m);
    return r;
}
