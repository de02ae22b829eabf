/*
 * Our own bounds clamp (spirv_clamp.c) against SPIRV-Tools' graphics
 * robust-access pass, which it replaces for the shapes it handles (no
 * device needed).
 *
 * On hand-assembled modules: each kind of index comes out as the pass
 * writes it, and the shapes left to SPIRV-Tools are reported as not
 * handled. On modules the harness really makes from bodies (every sample,
 * every mistake, and bodies that index with wild values): our pass
 * handles them, every index into an array, vector or matrix is a constant
 * in range or a clamp to the right bound, the output validates, and it
 * computes what SPIRV-Tools' output computes: the two are compared
 * instruction by instruction, with each index operand described by what
 * it is (a constant's type and value, a clamp of what to what) rather than
 * by the ids each pass happened to take.
 *
 * Argument: the folder of the sample bodies (tests/samples).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <spirv-tools/libspirv.h>

#include "common/task.h"
#include "engine/checks/spirv_check.h"
#include "engine/checks/spirv_clamp.h"
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_module.h"
#include "engine/checks/spirv_robust.h"
#include "engine/checks/spirv_strip.h"
#include "engine/compile/compile.h"
#include "tests/support/sample_bodies.h"
#include "tests/test_bodies.h"

#define OP_EXT_INST 12u
#define OP_CONSTANT 43u
#define OP_ACCESS_CHAIN 65u
#define OP_IN_BOUNDS_ACCESS_CHAIN 66u
#define GLSL_SCLAMP 45u

static const char *samples_dir = "tests/samples";

/* ---- modules written as assembly ---- */

/* The start every hand-written module shares: one compute entry point
 * over a Private array, vector and matrix. Slots, in order: extensions and
 * imports; decorations; extra globals; %main's body; functions after it. */
static const char module_asm[] =
    "OpCapability Shader\n"
    "%s"
    "OpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %%main \"main\"\n"
    "OpExecutionMode %%main LocalSize 1 1 1\n"
    "%s"
    "%%void = OpTypeVoid\n"
    "%%fn = OpTypeFunction %%void\n"
    "%%float = OpTypeFloat 32\n"
    "%%uint = OpTypeInt 32 0\n"
    "%%int = OpTypeInt 32 1\n"
    "%%v4 = OpTypeVector %%float 4\n"
    "%%m3 = OpTypeMatrix %%v4 3\n"
    "%%uint_4 = OpConstant %%uint 4\n"
    "%%uint_1 = OpConstant %%uint 1\n"
    "%%arr4 = OpTypeArray %%float %%uint_4\n"
    "%%arr1 = OpTypeArray %%float %%uint_1\n"
    "%%ptr_arr4 = OpTypePointer Private %%arr4\n"
    "%%ptr_arr1 = OpTypePointer Private %%arr1\n"
    "%%ptr_v4 = OpTypePointer Private %%v4\n"
    "%%ptr_m3 = OpTypePointer Private %%m3\n"
    "%%ptr_f = OpTypePointer Private %%float\n"
    "%%ptr_int = OpTypePointer Private %%int\n"
    "%%a = OpVariable %%ptr_arr4 Private\n"
    "%%a1 = OpVariable %%ptr_arr1 Private\n"
    "%%v = OpVariable %%ptr_v4 Private\n"
    "%%m = OpVariable %%ptr_m3 Private\n"
    "%%n = OpVariable %%ptr_int Private\n"
    "%%int_2 = OpConstant %%int 2\n"
    "%s"
    "%%main = OpFunction %%void None %%fn\n"
    "%%entry = OpLabel\n"
    "%%i = OpLoad %%int %%n\n"
    "%%u = OpBitcast %%uint %%i\n"
    "%s"
    "OpReturn\n"
    "OpFunctionEnd\n"
    "%s";

static const char glsl_import[] = "%glsl = OpExtInstImport \"GLSL.std.450\"\n";

/* Assembles the module with these parts; fails the test if it does not
 * assemble or is not valid (the pass assumes a valid module). */
static uint32_t *assemble(const char *preamble, const char *globals, const char *body,
                          const char *after, size_t *nwords)
{
    char text[8192];
    /* a storage buffer's extension and decorations ride in `preamble`,
     * after a line "--" */
    char pre[1024];
    const char *decorations = "";
    snprintf(pre, sizeof pre, "%s", preamble);
    char *cut = strstr(pre, "--\n");
    if (cut) {
        *cut = '\0';
        decorations = cut + 3;
    }
    int n = snprintf(text, sizeof text, module_asm, pre, decorations, globals, body, after);
    assert_true(n > 0 && (size_t)n < sizeof text);
    spv_context ctx = spvContextCreate(SPV_ENV_VULKAN_1_0);
    assert_non_null(ctx);
    spv_binary bin = NULL;
    spv_diagnostic diag = NULL;
    if (spvTextToBinary(ctx, text, (size_t)n, &bin, &diag) != SPV_SUCCESS) {
        print_error("assembly failed: %s\n%s\n", diag ? diag->error : "?", text);
        spvDiagnosticDestroy(diag);
        spvContextDestroy(ctx);
        fail();
    }
    uint32_t *words = malloc(bin->wordCount * sizeof *words);
    assert_non_null(words);
    memcpy(words, bin->code, bin->wordCount * sizeof *words);
    *nwords = bin->wordCount;
    spvBinaryDestroy(bin);
    spvContextDestroy(ctx);
    char msg[320];
    if (!spirv_robust_validate(words, *nwords, msg, sizeof msg))
        fail_msg("the hand-written module is invalid: %s\n%s", msg, text);
    return words;
}

/* ---- what the output holds ---- */

/* The access chains of the output, in order, each index described by
 * what it is: "c<s|u><value>" for a constant, "clamp<s|u>(x,lo,hi)" for a
 * GLSL.std.450 SClamp, "%<id>" for any other value (an id the input had). */
struct text {
    char *s;
    size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        assert_true(k >= 0);
        if (t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap * 2 + (size_t)k + 256;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

static char signedness(const struct spirv_module *m, uint32_t type)
{
    struct spirv_ins t;
    if (!spirv_module_def(m, type, &t) || t.op != 21 /* OpTypeInt */ || t.wc != 4)
        return '?';
    return t.w[3] ? 's' : 'u';
}

static void describe(struct text *t, const struct spirv_module *m, uint32_t id,
                     uint32_t input_bound)
{
    struct spirv_ins d;
    if (!spirv_module_def(m, id, &d)) {
        put(t, "undefined");
    } else if (d.op == OP_CONSTANT && d.wc == 4) {
        put(t, "c%c%d", signedness(m, d.result_type), (int32_t)d.w[3]);
    } else if (d.op == 46 /* OpConstantNull */) {
        put(t, "null%c", signedness(m, d.result_type));
    } else if (d.op == OP_EXT_INST && d.wc == 8 && d.w[4] == GLSL_SCLAMP) {
        put(t, "clamp%c(", signedness(m, d.result_type));
        describe(t, m, d.w[5], input_bound);
        put(t, ",");
        describe(t, m, d.w[6], input_bound);
        put(t, ",");
        describe(t, m, d.w[7], input_bound);
        put(t, ")");
    } else if (id < input_bound) {
        put(t, "%%%u", id);
    } else {
        put(t, "new-op%u", d.op);
    }
}

/*
 * The module as text that two passes of the same meaning write alike:
 * debug instructions stripped; the new constants and clamps (ids from
 * `input_bound` up) not listed where they stand but through the indices
 * that use them; every other instruction word for word.
 */
static char *canonical(const uint32_t *words, size_t nwords, uint32_t input_bound)
{
    uint32_t *stripped;
    size_t n;
    struct spirv_module m;
    struct spirv_ins ins;
    struct text t = {0};
    assert_true(spirv_strip_debug(words, nwords, &stripped, &n));
    assert_true(spirv_module_index(&m, stripped, n));
    put(&t, "header %08x %08x %08x %08x\n", m.words[0], m.words[1], m.words[2], m.words[4]);
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&m, at, &ins); at += ins.wc) {
        if (ins.result >= input_bound && (ins.op == OP_CONSTANT || ins.op == OP_EXT_INST))
            continue;
        if (ins.op == OP_ACCESS_CHAIN || ins.op == OP_IN_BOUNDS_ACCESS_CHAIN) {
            put(&t, "access %u %u %u %u", ins.op, ins.w[1], ins.w[2], ins.w[3]);
            for (uint32_t k = 4; k < ins.wc; k++) {
                put(&t, " ");
                describe(&t, &m, ins.w[k], input_bound);
            }
        } else {
            for (uint32_t k = 0; k < ins.wc; k++)
                put(&t, "%s%u", k ? " " : "op ", ins.w[k]);
        }
        put(&t, "\n");
    }
    spirv_module_clear(&m);
    free(stripped);
    put(&t, "");
    return t.s;
}

/* Fails with the first line where the two canonical texts differ. */
static void assert_same_meaning(const char *what, const uint32_t *ours, size_t nours,
                                const uint32_t *tools, size_t ntools, uint32_t input_bound)
{
    char *a = canonical(ours, nours, input_bound), *b = canonical(tools, ntools, input_bound);
    if (strcmp(a, b) != 0) {
        const char *p = a, *q = b;
        while (*p && *p == *q) {
            const char *ea = strchr(p, '\n'), *eb = strchr(q, '\n');
            if (!ea || !eb || ea - p != eb - q || memcmp(p, q, (size_t)(ea - p)) != 0)
                break;
            p = ea + 1;
            q = eb + 1;
        }
        fail_msg("%s: ours and SPIRV-Tools' differ:\n ours:  %.200s\n tools: %.200s", what,
                 p, q);
    }
    free(a);
    free(b);
}

/* Whether an entry point is function `fn` or an OpFunctionCall calls it. */
static bool called(const struct spirv_module *m, uint32_t fn)
{
    struct spirv_ins ins;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc)
        if ((ins.op == 15 /* OpEntryPoint */ && ins.w[2] == fn) ||
            (ins.op == 57 /* OpFunctionCall */ && ins.w[3] == fn))
            return true;
    return false;
}

/*
 * Every index into an array, vector or matrix, in every access chain of
 * the functions an entry point or a call reaches, is a constant in [0, N-1] or SClamp(x, 0, N-1) with signed
 * 32-bit bounds (N capped at INT32_MAX + 1), or 0 when N is 1. Returns the
 * number of clamps seen.
 */
static unsigned assert_all_clamped(const char *what, const uint32_t *words, size_t nwords)
{
    struct spirv_module m;
    struct spirv_ins ins, base, ptr, type, d;
    unsigned clamps = 0;
    bool live = false;
    assert_true(spirv_module_index(&m, words, nwords));
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&m, at, &ins); at += ins.wc) {
        if (ins.op == 54 /* OpFunction */)
            live = called(&m, ins.result);
        if (!live || (ins.op != OP_ACCESS_CHAIN && ins.op != OP_IN_BOUNDS_ACCESS_CHAIN))
            continue;
        assert_true(spirv_module_def(&m, ins.w[3], &base));
        assert_true(spirv_module_def(&m, base.result_type, &ptr));
        uint32_t pointee = ptr.w[3];
        for (uint32_t k = 4; k < ins.wc; k++) {
            uint32_t count;
            assert_true(spirv_module_def(&m, pointee, &type));
            assert_true(spirv_module_def(&m, ins.w[k], &d));
            if (type.op == 30 /* OpTypeStruct */) {
                assert_int_equal(d.op, OP_CONSTANT);
                pointee = type.w[2 + d.w[3]];
                continue;
            }
            if (type.op == 28 /* OpTypeArray */)
                assert_true(spirv_module_constant_u32(&m, type.w[3], &count));
            else if (type.op == 23 || type.op == 24)   /* vector, matrix */
                count = type.w[3];
            else
                fail_msg("%s: an index into type op %u", what, type.op);
            int64_t max = count - 1 > INT32_MAX ? INT32_MAX : (int64_t)count - 1;
            uint32_t lo, hi;
            if (d.op == 46 /* OpConstantNull: 0 */ && count > 1) {
            } else if (d.op == OP_CONSTANT) {
                if ((int32_t)d.w[3] < 0 || (int32_t)d.w[3] > max)
                    fail_msg("%s: constant index %d into %u elements", what,
                             (int32_t)d.w[3], count);
            } else if (d.op == OP_EXT_INST && d.wc == 8 && d.w[4] == GLSL_SCLAMP && max > 0) {
                assert_true(spirv_module_constant_u32(&m, d.w[6], &lo));
                assert_true(spirv_module_constant_u32(&m, d.w[7], &hi));
                struct spirv_ins cl, ch;
                assert_true(spirv_module_def(&m, d.w[6], &cl));
                assert_true(spirv_module_def(&m, d.w[7], &ch));
                assert_int_equal(signedness(&m, cl.result_type), 's');
                assert_int_equal(signedness(&m, ch.result_type), 's');
                if (lo != 0 || hi != max)
                    fail_msg("%s: clamp to [%u, %u] of %u elements", what, lo, hi, count);
                clamps++;
            } else {
                fail_msg("%s: index %u (op %u) into %u elements is not clamped", what,
                         ins.w[k], d.op, count);
            }
            pointee = type.w[2];
        }
    }
    spirv_module_clear(&m);
    return clamps;
}

/* Ours, then SPIRV-Tools', on one module: ours handles it, its output
 * validates and is clamped, and means what SPIRV-Tools' means. Returns
 * ours (the caller frees it). */
static uint32_t *compare_passes(const char *what, const uint32_t *words, size_t nwords,
                                size_t *nout)
{
    uint32_t *ours = NULL, *tools = NULL;
    size_t nours = 0, ntools = 0;
    char msg[320];
    assert_int_equal(spirv_clamp_indices(words, nwords, &ours, &nours), SPIRV_CLAMP_DONE);
    if (!spirv_robust_validate(ours, nours, msg, sizeof msg))
        fail_msg("%s: our output is invalid: %s", what, msg);
    if (!spirv_robust_apply_tools(words, nwords, &tools, &ntools, msg, sizeof msg))
        fail_msg("%s: SPIRV-Tools' pass failed: %s", what, msg);
    assert_all_clamped(what, ours, nours);
    assert_same_meaning(what, ours, nours, tools, ntools, words[3]);
    free(tools);
    *nout = nours;
    return ours;
}

/* The index operands of the access chain with result `id` in words. */
static char *indices_of(const uint32_t *words, size_t nwords, uint32_t input_bound,
                        uint32_t nth)
{
    struct spirv_module m;
    struct spirv_ins ins;
    struct text t = {0};
    uint32_t seen = 0;
    assert_true(spirv_module_index(&m, words, nwords));
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&m, at, &ins); at += ins.wc) {
        if ((ins.op != OP_ACCESS_CHAIN && ins.op != OP_IN_BOUNDS_ACCESS_CHAIN) || seen++ != nth)
            continue;
        for (uint32_t k = 4; k < ins.wc; k++) {
            put(&t, k > 4 ? " " : "");
            describe(&t, &m, ins.w[k], input_bound);
        }
    }
    spirv_module_clear(&m);
    put(&t, "");
    return t.s;
}

/* The result id of the first instruction of opcode `op` (%i is main's
 * OpLoad, %u its OpBitcast). */
static uint32_t first_result(const uint32_t *words, size_t nwords, uint32_t op)
{
    struct spirv_module m;
    struct spirv_ins ins;
    uint32_t id = 0;
    assert_true(spirv_module_index(&m, words, nwords));
    for (size_t at = SPIRV_HEADER_WORDS; !id && spirv_module_at(&m, at, &ins); at += ins.wc)
        if (ins.op == op)
            id = ins.result;
    spirv_module_clear(&m);
    assert_int_not_equal(id, 0);
    return id;
}

/* The expected description with I and U standing for the ids of %i, %u. */
static void expand(char *out, size_t outsz, const char *expected, uint32_t i, uint32_t u)
{
    size_t o = 0;
    for (const char *p = expected; *p && o + 16 < outsz; p++) {
        if (*p == 'I' || *p == 'U')
            o += (size_t)snprintf(out + o, outsz - o, "%%%u", *p == 'I' ? i : u);
        else
            out[o++] = *p;
    }
    out[o] = '\0';
}

/* One access chain in %main; its indices after our pass as described
 * (I: the int %i, U: the uint %u). */
static void expect_indices(const char *globals, const char *chain, const char *expected)
{
    size_t n, nout;
    char want[256];
    uint32_t *words = assemble(glsl_import, globals, chain, "", &n);
    expand(want, sizeof want, expected, first_result(words, n, 61 /* OpLoad */),
           first_result(words, n, 124 /* OpBitcast */));
    uint32_t *out = compare_passes(chain, words, n, &nout);
    char *got = indices_of(out, nout, words[3], 0);
    if (strcmp(got, want) != 0)
        fail_msg("%s: indices %s, expected %s", chain, got, want);
    free(got);
    free(out);
    free(words);
}

static void test_index_kinds(void **state)
{
    (void)state;
    /* a run-time index: SClamp to [0, N-1], signed bounds, the index's type */
    expect_indices("", "%p = OpAccessChain %ptr_f %a %i\n", "clamps(I,cs0,cs3)");
    expect_indices("", "%p = OpAccessChain %ptr_f %a %u\n", "clampu(U,cs0,cs3)");
    expect_indices("", "%p = OpInBoundsAccessChain %ptr_f %v %i\n", "clamps(I,cs0,cs3)");
    /* a matrix's column, then the column's component */
    expect_indices("", "%p = OpAccessChain %ptr_f %m %u %i\n",
                   "clampu(U,cs0,cs2) clamps(I,cs0,cs3)");
    /* constants: in range left, negative to 0 of their type, above to N-1 signed */
    expect_indices("", "%p = OpAccessChain %ptr_f %a %int_2\n", "cs2");
    expect_indices("%int_m1 = OpConstant %int -1\n", "%p = OpAccessChain %ptr_f %a %int_m1\n",
                   "cs0");
    expect_indices("%uint_big = OpConstant %uint 4294967295\n",
                   "%p = OpAccessChain %ptr_f %a %uint_big\n", "cu0");
    expect_indices("%uint_9 = OpConstant %uint 9\n", "%p = OpAccessChain %ptr_f %a %uint_9\n",
                   "cs3");
    expect_indices("%int_4 = OpConstant %int 4\n", "%p = OpAccessChain %ptr_f %m %int_4 %int_4\n",
                   "cs2 cs3");
    /* one element: every index is 0 of its type */
    expect_indices("", "%p = OpAccessChain %ptr_f %a1 %u\n", "cu0");
    expect_indices("", "%p = OpAccessChain %ptr_f %a1 %int_2\n", "cs0");
}

/* A struct's member index stays; what it leads to is clamped by its type. */
static void test_struct_members(void **state)
{
    (void)state;
    expect_indices("%st = OpTypeStruct %v4 %arr4\n"
                   "%ptr_st = OpTypePointer Private %st\n"
                   "%s = OpVariable %ptr_st Private\n"
                   "%int_1 = OpConstant %int 1\n",
                   "%p = OpAccessChain %ptr_f %s %int_1 %i\n", "cs1 clamps(I,cs0,cs3)");
}

/* Only the functions an entry point reaches are clamped, as SPIRV-Tools'
 * pass does: nothing can run the others. */
static void test_unreachable_function_left(void **state)
{
    (void)state;
    size_t n, nout;
    uint32_t *words = assemble(glsl_import, "", "", "%other = OpFunction %void None %fn\n"
                               "%oentry = OpLabel\n"
                               "%ok = OpLoad %int %n\n"
                               "%op = OpAccessChain %ptr_f %a %ok\n"
                               "OpReturn\nOpFunctionEnd\n", &n);
    uint32_t *out = compare_passes("unreachable", words, n, &nout);
    assert_int_equal(nout, n);
    assert_memory_equal(out, words, n * sizeof *words);
    free(out);
    free(words);
}

/* A huge array: the bound is capped at INT32_MAX, as signed indices want. */
static void test_huge_array(void **state)
{
    (void)state;
    size_t n, nout;
    uint32_t *words = assemble(glsl_import,
                     "%uint_huge = OpConstant %uint 4000000000\n"
                     "%arrh = OpTypeArray %float %uint_huge\n"
                     "%ptr_arrh = OpTypePointer Private %arrh\n"
                     "%h = OpVariable %ptr_arrh Private\n",
                     "%p = OpAccessChain %ptr_f %h %i\n%q = OpAccessChain %ptr_f %h %uint_huge\n",
                     "", &n);
    uint32_t *out = compare_passes("huge", words, n, &nout);
    char *first = indices_of(out, nout, words[3], 0), *second = indices_of(out, nout, words[3], 1);
    char want[64];
    snprintf(want, sizeof want, "clamps(%%%u,cs0,cs2147483647)",
             first_result(words, n, 61 /* OpLoad */));
    assert_string_equal(first, want);
    assert_string_equal(second, "cu0");   /* 4e9 is negative as a signed index */
    free(first);
    free(second);
    free(out);
    free(words);
}

/* A null index is 0: ours leaves it (or makes it an OpConstant 0 into one
 * element). SPIRV-Tools' pass, which crashes on it, is not asked. */
static void test_null_index(void **state)
{
    (void)state;
    size_t n, nout;
    uint32_t *words = assemble(glsl_import, "%null = OpConstantNull %int\n",
                               "%p = OpAccessChain %ptr_f %a %null\n"
                               "%q = OpAccessChain %ptr_f %a1 %null\n", "", &n);
    uint32_t *out = NULL;
    char msg[320];
    assert_int_equal(spirv_clamp_indices(words, n, &out, &nout), SPIRV_CLAMP_DONE);
    assert_true(spirv_robust_validate(out, nout, msg, sizeof msg));
    assert_all_clamped("null", out, nout);
    char *first = indices_of(out, nout, words[3], 0), *second = indices_of(out, nout, words[3], 1);
    assert_string_equal(first, "nulls");
    assert_string_equal(second, "cs0");
    free(first);
    free(second);
    free(out);
    free(words);
}

/* What ours leaves to SPIRV-Tools: it says so and writes nothing. */
static void expect_not_handled(const char *preamble, const char *globals, const char *body)
{
    size_t n;
    uint32_t *words = assemble(preamble, globals, body, "", &n);
    uint32_t *out = (uint32_t *)(uintptr_t)0x1;
    size_t nout = 77;
    assert_int_equal(spirv_clamp_indices(words, n, &out, &nout), SPIRV_CLAMP_NOT_HANDLED);
    assert_ptr_equal(out, (uint32_t *)(uintptr_t)0x1);
    assert_int_equal(nout, 77);
    /* and spirv_robust_apply still clamps it, through SPIRV-Tools */
    char msg[320];
    assert_true(spirv_robust_apply(words, n, &out, &nout, msg, sizeof msg));
    assert_true(spirv_robust_validate(out, nout, msg, sizeof msg));
    free(out);
    free(words);
}

static void test_fallbacks(void **state)
{
    (void)state;
    /* no GLSL.std.450 import (SPIRV-Tools adds one) */
    expect_not_handled("", "", "%p = OpAccessChain %ptr_f %a %i\n");
    /* a specialisation-constant length */
    expect_not_handled(glsl_import,
                       "%len = OpSpecConstant %uint 4\n"
                       "%arrs = OpTypeArray %float %len\n"
                       "%ptr_arrs = OpTypePointer Private %arrs\n"
                       "%sa = OpVariable %ptr_arrs Private\n",
                       "%p = OpAccessChain %ptr_f %sa %i\n");
    /* a runtime array, at the end of a storage buffer */
    expect_not_handled("OpExtension \"SPV_KHR_storage_buffer_storage_class\"\n"
                       "%glsl = OpExtInstImport \"GLSL.std.450\"\n--\n"
                       "OpDecorate %rt ArrayStride 4\n"
                       "OpMemberDecorate %blk 0 Offset 0\n"
                       "OpDecorate %blk Block\n"
                       "OpDecorate %buf DescriptorSet 0\n"
                       "OpDecorate %buf Binding 0\n",
                       "%rt = OpTypeRuntimeArray %float\n"
                       "%blk = OpTypeStruct %rt\n"
                       "%ptr_blk = OpTypePointer StorageBuffer %blk\n"
                       "%ptr_sf = OpTypePointer StorageBuffer %float\n"
                       "%buf = OpVariable %ptr_blk StorageBuffer\n"
                       "%int_0 = OpConstant %int 0\n",
                       "%p = OpAccessChain %ptr_sf %buf %int_0 %i\n");
}

static void test_not_a_module(void **state)
{
    (void)state;
    uint32_t garbage[] = {0x07230203, 0x00010000, 0, 100, 0, 0xdeadbeef, 1, 2, 3};
    uint32_t *out = NULL;
    size_t nout = 0;
    assert_int_equal(spirv_clamp_indices(garbage, 9, &out, &nout), SPIRV_CLAMP_NOT_HANDLED);
    assert_int_equal(spirv_clamp_indices(NULL, 0, &out, &nout), SPIRV_CLAMP_NOT_HANDLED);
    assert_null(out);
    /* a bound so near the spec's limit that new ids could run out */
    size_t n;
    uint32_t *words = assemble(glsl_import, "", "%p = OpAccessChain %ptr_f %a %i\n", "", &n);
    words[3] = 0x3FFFF0;
    assert_int_equal(spirv_clamp_indices(words, n, &out, &nout), SPIRV_CLAMP_NOT_HANDLED);
    assert_null(out);
    free(words);
}

/* ---- modules the harness makes ---- */

/* Compiles a body as grading does (checked, loops counted) and compares
 * the passes on it; false when the body does not get that far. */
static bool compare_on_body(struct compiler *c, const char *what, const char *body)
{
    struct compile_result cr;
    char msg[320];
    int line;
    assert_true(compiler_compile(c, body, strlen(body), &cr));
    if (!cr.ok || !spirv_check(cr.spirv, cr.nwords, &line, msg, sizeof msg)) {
        compile_result_clear(&cr);
        return false;
    }
    uint32_t *counted = NULL, *ours;
    size_t counted_n = 0, nloops = 0, nours;
    assert_true(spirv_loops_instrument(cr.spirv, cr.nwords, exercise_default()->loop_budget, &counted,
                                       &counted_n, &nloops, msg, sizeof msg));
    if (!spirv_robust_validate(counted, counted_n, msg, sizeof msg))
        fail_msg("%s: the counted module is invalid: %s", what, msg);
    ours = compare_passes(what, counted, counted_n, &nours);
    /* and spirv_robust_apply gives exactly ours */
    uint32_t *applied;
    size_t napplied;
    assert_true(spirv_robust_apply(counted, counted_n, &applied, &napplied, msg, sizeof msg));
    assert_int_equal(napplied, nours);
    assert_memory_equal(applied, ours, nours * sizeof *ours);
    free(applied);
    free(ours);
    free(counted);
    compile_result_clear(&cr);
    return true;
}

static void test_wild_bodies(void **state)
{
    struct compiler *c = *state;
    for (size_t k = 0; k < index_bodies_count; k++) {
        char what[32];
        snprintf(what, sizeof what, "index body %zu", k);
        if (!compare_on_body(c, what, index_bodies[k]))
            fail_msg("%s does not compile or is refused", what);
    }
    assert_true(compare_on_body(c, "the hint", test_correct_body));
}

static bool compare_sample(void *arg, const char *name, const char *body)
{
    return compare_on_body(arg, name, body);
}

static void test_samples(void **state)
{
    char mistakes[1024];
    snprintf(mistakes, sizeof mistakes, "%s/mistakes", samples_dir);
    /* every sample body (and every mistake) that compiles and passes the checks */
    size_t n = sample_bodies_each(samples_dir, compare_sample, *state) +
               sample_bodies_each(mistakes, compare_sample, *state);
    /* the folders hold 22 + 34 bodies; most compile and pass the checks */
    assert_true(n >= 40);
}

static int setup(void **state)
{
    *state = compiler_new();
    return *state ? 0 : -1;
}

/* Our passes read modules nothing has validated yet (grade.c validates
 * the driver's module after them): an instruction shorter than its
 * opcode's operands must never be read past. The module is allocated to
 * its last word, so the sanitizers see any read beyond. */
static void test_short_instructions_not_overread(void **state)
{
    (void)state;
    static const uint32_t shape[] = {
        0x07230203, 0x00010000, 0, 10, 0,
        (4u << 16) | 43u, 2, 3, 5,   /* %3 = OpConstant %2 5 (opcode 43) */
        (2u << 16) | 21u, 2,         /* %2 = OpTypeInt (21), its width cut off */
    };
    size_t n = sizeof shape / sizeof shape[0];
    uint32_t *words = malloc(sizeof shape);
    assert_non_null(words);
    memcpy(words, shape, sizeof shape);
    struct spirv_module m;
    assert_true(spirv_module_index(&m, words, n));
    uint32_t value = 77;
    assert_false(spirv_module_constant_u32(&m, 3, &value));
    assert_int_equal(value, 77);
    spirv_module_clear(&m);
    /* and the passes that run before validation take it without harm */
    uint32_t *out = NULL;
    size_t nout = 0;
    assert_int_not_equal(spirv_clamp_indices(words, n, &out, &nout), SPIRV_CLAMP_DONE);
    assert_int_equal(spirv_loops_drop_mark_store(words, n), n);
    free(out);
    free(words);
}

static int teardown(void **state)
{
    compiler_free(*state);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        samples_dir = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index_kinds),
        cmocka_unit_test(test_struct_members),
        cmocka_unit_test(test_unreachable_function_left),
        cmocka_unit_test(test_huge_array),
        cmocka_unit_test(test_null_index),
        cmocka_unit_test(test_fallbacks),
        cmocka_unit_test(test_not_a_module),
        cmocka_unit_test(test_short_instructions_not_overread),
        cmocka_unit_test_setup_teardown(test_wild_bodies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
