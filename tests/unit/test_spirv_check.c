/*
 * Unit tests for spirv_check (the harness-contract gate) and
 * spirv_robust_apply (index clamping). Modules are written as SPIR-V
 * assembly below and assembled in-process with SPIRV-Tools, so each test
 * shows exactly what the module holds.
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
#include "engine/checks/spirv_loops.h"
#include "engine/checks/spirv_robust.h"
#include "engine/compile/compile.h"
#include "engine/refusal.h"
#include "tests/test_bodies.h"

/*
 * The shape of the harness: Shader only, GLSL.std.450, main as GLCompute
 * 8 x 2 x 1, two BufferBlock buffers in set 0 at bindings 0 and 1, and
 * built-in inputs. Slots, in order: extra capabilities, extensions and
 * imports; the execution mode lines; extra decorations; the binding of the
 * output buffer; extra types and globals.
 */
static const char harness_asm[] =
    "OpCapability Shader\n"
    "%s"
    "%%glsl = OpExtInstImport \"GLSL.std.450\"\n"
    "OpMemoryModel Logical GLSL450\n"
    "OpEntryPoint GLCompute %%main \"main\" %%wgid %%lid\n"
    "%s"
    "OpDecorate %%wgid BuiltIn WorkgroupId\n"
    "OpDecorate %%lid BuiltIn LocalInvocationId\n"
    "OpDecorate %%rt_float ArrayStride 4\n"
    "OpMemberDecorate %%in_block 0 Offset 0\n"
    "OpMemberDecorate %%in_block 0 NonWritable\n"
    "OpDecorate %%in_block BufferBlock\n"
    "OpDecorate %%in_var DescriptorSet 0\n"
    "OpDecorate %%in_var Binding 0\n"
    "OpMemberDecorate %%out_block 0 Offset 0\n"
    "OpMemberDecorate %%out_block 0 NonReadable\n"
    "OpDecorate %%out_block BufferBlock\n"
    "%s"
    "OpDecorate %%out_var DescriptorSet 0\n"
    "OpDecorate %%out_var Binding %s\n"
    "%%void = OpTypeVoid\n"
    "%%fn = OpTypeFunction %%void\n"
    "%%float = OpTypeFloat 32\n"
    "%%uint = OpTypeInt 32 0\n"
    "%%int = OpTypeInt 32 1\n"
    "%%v3uint = OpTypeVector %%uint 3\n"
    "%%rt_float = OpTypeRuntimeArray %%float\n"
    "%%in_block = OpTypeStruct %%rt_float\n"
    "%%out_block = OpTypeStruct %%rt_float\n"
    "%%ptr_in_block = OpTypePointer Uniform %%in_block\n"
    "%%ptr_out_block = OpTypePointer Uniform %%out_block\n"
    "%%ptr_float = OpTypePointer Uniform %%float\n"
    "%%ptr_v3uint = OpTypePointer Input %%v3uint\n"
    "%%ptr_uint = OpTypePointer Input %%uint\n"
    "%%int_0 = OpConstant %%int 0\n"
    "%%uint_0 = OpConstant %%uint 0\n"
    "%%uint_1 = OpConstant %%uint 1\n"
    "%%uint_2 = OpConstant %%uint 2\n"
    "%%uint_8 = OpConstant %%uint 8\n"
    "%%in_var = OpVariable %%ptr_in_block Uniform\n"
    "%%out_var = OpVariable %%ptr_out_block Uniform\n"
    "%%wgid = OpVariable %%ptr_v3uint Input\n"
    "%%lid = OpVariable %%ptr_v3uint Input\n"
    "%s"
    "%%main = OpFunction %%void None %%fn\n"
    "%%entry = OpLabel\n"
    "%%px = OpAccessChain %%ptr_uint %%lid %%uint_0\n"
    "%%x = OpLoad %%uint %%px\n"
    "%%src = OpAccessChain %%ptr_float %%in_var %%int_0 %%x\n"
    "%%v = OpLoad %%float %%src\n"
    "%%s = OpExtInst %%float %%glsl Sin %%v\n"
    "%%dst = OpAccessChain %%ptr_float %%out_var %%int_0 %%x\n"
    "OpStore %%dst %%s\n"
    "OpReturn\n"
    "OpFunctionEnd\n";

static const char local_size_821[] = "OpExecutionMode %main LocalSize 8 2 1\n";

/* One variation of the harness module, and what a refusal must mention. */
struct module_case {
    const char *caps;
    const char *modes;
    const char *decorations;
    const char *out_binding;
    const char *globals;
    const char *expect; /* substring of the refusal; NULL: must be accepted */
};

struct spirv_module {
    uint32_t *words;
    size_t nwords;
};

/* Assembles a variation of the harness; fails the test if it does not assemble. */
static struct spirv_module assemble_case(const struct module_case *c, spv_target_env env)
{
    char text[8192];
    int n = snprintf(text, sizeof text, harness_asm, c->caps ? c->caps : "",
                     c->modes ? c->modes : local_size_821,
                     c->decorations ? c->decorations : "",
                     c->out_binding ? c->out_binding : "1", c->globals ? c->globals : "");
    assert_true(n > 0 && (size_t)n < sizeof text);

    spv_context ctx = spvContextCreate(env);
    assert_non_null(ctx);
    spv_binary bin = NULL;
    spv_diagnostic diag = NULL;
    spv_result_t rc = spvTextToBinary(ctx, text, (size_t)n, &bin, &diag);
    if (rc != SPV_SUCCESS) {
        print_error("assembly failed: %s\n", diag ? diag->error : "?");
        spvDiagnosticDestroy(diag);
        spvContextDestroy(ctx);
        fail();
    }
    struct spirv_module m = {malloc(bin->wordCount * sizeof(uint32_t)), bin->wordCount};
    assert_non_null(m.words);
    memcpy(m.words, bin->code, bin->wordCount * sizeof(uint32_t));
    spvBinaryDestroy(bin);
    spvContextDestroy(ctx);
    return m;
}

static struct spirv_module assemble_harness(void)
{
    static const struct module_case plain = {0};
    return assemble_case(&plain, SPV_ENV_VULKAN_1_0);
}

/* Checks a module and asserts a refusal whose message mentions `expect`. */
static void assert_refused(const uint32_t *words, size_t nwords, const char *expect)
{
    char msg[256];
    memset(msg, 'x', sizeof msg);
    bool ok = spirv_check(words, nwords, NULL, msg, sizeof msg);
    assert_false(ok);
    assert_non_null(memchr(msg, '\0', sizeof msg));
    if (strstr(msg, expect) == NULL) {
        print_error("message \"%s\" does not mention \"%s\"\n", msg, expect);
        fail();
    }
}

/* Index of the first instruction with opcode `op`, or 0 when there is none. */
static size_t find_opcode(const struct spirv_module *m, uint32_t op)
{
    for (size_t at = 5; at < m->nwords && (m->words[at] >> 16) != 0; at += m->words[at] >> 16)
        if ((m->words[at] & 0xffff) == op)
            return at;
    return 0;
}

static void test_harness_accepted(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    char msg[256] = "unset";
    bool ok = spirv_check(m.words, m.nwords, NULL, msg, sizeof msg);
    if (!ok)
        print_error("refused: %s\n", msg);
    assert_true(ok);
    assert_string_equal(msg, "");
    free(m.words);
}

static void test_bytes_accepted_unaligned(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    size_t nbytes = m.nwords * 4;
    unsigned char *buf = malloc(nbytes + 1);
    assert_non_null(buf);
    memcpy(buf + 1, m.words, nbytes);
    char msg[256];
    assert_true(spirv_check_bytes(buf + 1, nbytes, msg, sizeof msg));
    free(buf);
    free(m.words);
}

static void test_bytes_partial_word_refused(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    char msg[256];
    assert_false(spirv_check_bytes(m.words, m.nwords * 4 - 2, msg, sizeof msg));
    assert_non_null(strstr(msg, "32-bit words"));
    free(m.words);
}

/* glslang writes LocalSizeId for a Vulkan 1.3 target. */
static void test_local_size_id_accepted(void **state)
{
    (void)state;
    const struct module_case c = {
        .modes = "OpExecutionModeId %main LocalSizeId %uint_8 %uint_2 %uint_1\n"};
    struct spirv_module m = assemble_case(&c, SPV_ENV_UNIVERSAL_1_6);
    char msg[256];
    bool ok = spirv_check(m.words, m.nwords, NULL, msg, sizeof msg);
    if (!ok)
        print_error("refused: %s\n", msg);
    assert_true(ok);
    free(m.words);
}

static void test_refused_case(void **state)
{
    const struct module_case *c = *state;
    struct spirv_module m = assemble_case(c, SPV_ENV_UNIVERSAL_1_6);
    assert_refused(m.words, m.nwords, c->expect);
    free(m.words);
}

static struct module_case float64 = {
    .caps = "OpCapability Float64\n", .expect = "double precision is not available"};
static struct module_case int64 = {
    .caps = "OpCapability Int64\n", .expect = "64-bit integers are not available"};
static struct module_case derivatives = {
    .caps = "OpCapability DerivativeControl\n", .expect = "capability DerivativeControl"};
static struct module_case extension = {
    .caps = "OpExtension \"SPV_KHR_storage_buffer_storage_class\"\n",
    .expect = "extension SPV_KHR_storage_buffer_storage_class"};
static struct module_case second_import = {
    .caps = "%glsl2 = OpExtInstImport \"GLSL.std.450\"\n", .expect = "twice"};
static struct module_case foreign_import = {
    .caps = "%ocl = OpExtInstImport \"OpenCL.std\"\n", .expect = "OpenCL.std"};
static struct module_case workgroup = {
    .globals = "%ptr_wg = OpTypePointer Workgroup %float\n"
               "%wg = OpVariable %ptr_wg Workgroup\n",
    .expect = "shared (Workgroup) memory"};
static struct module_case extra_binding = {
    .decorations = "OpDecorate %extra_var DescriptorSet 0\n"
                   "OpDecorate %extra_var Binding 2\n",
    .globals = "%extra_var = OpVariable %ptr_in_block Uniform\n",
    .expect = "binding 2"};
static struct module_case third_buffer = {
    .globals = "%extra_var = OpVariable %ptr_in_block Uniform\n",
    .expect = "two buffers"};
static struct module_case duplicate_binding = {
    .out_binding = "0", .expect = "duplicate binding"};
static struct module_case other_set = {
    .decorations = "OpDecorate %out_var DescriptorSet 1\n", .expect = "descriptor set 1"};
static struct module_case push_constant = {
    .decorations = "OpDecorate %pc_block Block\nOpMemberDecorate %pc_block 0 Offset 0\n",
    .globals = "%pc_block = OpTypeStruct %float\n"
               "%ptr_pc = OpTypePointer PushConstant %pc_block\n"
               "%pc = OpVariable %ptr_pc PushConstant\n",
    .expect = "push constants"};
static struct module_case second_entry = {
    .modes = "OpEntryPoint GLCompute %main \"main2\"\n"
             "OpExecutionMode %main LocalSize 8 2 1\n",
    .expect = "more than one entry point"};
static struct module_case wrong_local_size = {
    .modes = "OpExecutionMode %main LocalSize 4 2 1\n", .expect = "not 4 x 2 x 1"};
static struct module_case wrong_local_size_id = {
    .modes = "OpExecutionModeId %main LocalSizeId %uint_8 %uint_8 %uint_1\n",
    .expect = "8 x 2 x 1"};
static struct module_case other_mode = {
    .modes = "OpExecutionMode %main LocalSize 8 2 1\n"
             "OpExecutionMode %main SubgroupsPerWorkgroup 1\n",
    .expect = "execution mode SubgroupsPerWorkgroup"};
static struct module_case plain_input = {
    .globals = "%user_in = OpVariable %ptr_v3uint Input\n", .expect = "not a built-in"};
static struct module_case output_var = {
    .globals = "%ptr_out = OpTypePointer Output %float\n", .expect = "Output"};
static struct module_case sampler = {
    .globals = "%sampler = OpTypeSampler\n", .expect = "samplers"};
static struct module_case decoration_group = {
    .decorations = "%grp = OpDecorationGroup\nOpGroupDecorate %grp %out_var\n",
    .expect = "decoration groups"};
static struct module_case device_address = {
    .globals = "%ptr_psb = OpTypePointer PhysicalStorageBuffer %float\n",
    .expect = "PhysicalStorageBuffer"};

#define REFUSAL(c) {"refuses_" #c, test_refused_case, NULL, NULL, &c}

static void test_truncated_header(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    assert_refused(m.words, 3, "truncated");
    free(m.words);
}

static void test_truncated_mid_instruction(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    /* End the module inside the 3-word OpStore. */
    size_t at = find_opcode(&m, 62 /* OpStore */);
    assert_true(at != 0);
    assert_refused(m.words, at + 2, "truncated");
    free(m.words);
}

static void test_bad_magic(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    m.words[0] ^= 1;
    assert_refused(m.words, m.nwords, "magic");
    free(m.words);
}

static void test_word_count_overruns_end(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    size_t at = find_opcode(&m, 17 /* OpCapability */);
    assert_true(at != 0);
    m.words[at] = (0xffffu << 16) | 17;
    assert_refused(m.words, m.nwords, "overruns the end");
    free(m.words);
}

static void test_zero_word_count(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    size_t at = find_opcode(&m, 14 /* OpMemoryModel */);
    assert_true(at != 0);
    m.words[at] &= 0xffff;
    assert_refused(m.words, m.nwords, "word count of zero");
    free(m.words);
}

/* A string with no NUL inside its instruction must not be read past. */
static void test_unterminated_string(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    size_t at = find_opcode(&m, 11 /* OpExtInstImport */);
    assert_true(at != 0);
    size_t wc = m.words[at] >> 16;
    m.words[at + wc - 1] = 0x41414141; /* overwrite the NUL padding */
    assert_refused(m.words, m.nwords, "malformed");
    free(m.words);
}

static void test_oversize(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    size_t big = SPIRV_CHECK_MAX_BYTES / 4 + 1;
    uint32_t *words = calloc(big, sizeof(uint32_t));
    assert_non_null(words);
    memcpy(words, m.words, m.nwords * sizeof(uint32_t));
    assert_refused(words, big, "too large");
    free(words);
    free(m.words);
}

static void test_empty_and_null(void **state)
{
    (void)state;
    char msg[128];
    assert_false(spirv_check(NULL, 0, NULL, msg, sizeof msg));
    assert_true(strlen(msg) > 0);
    /* No message buffer at all must still be safe. */
    assert_false(spirv_check(NULL, 0, NULL, NULL, 0));
}

static void test_robust_accepts_harness(void **state)
{
    (void)state;
    struct spirv_module m = assemble_harness();
    uint32_t *out = NULL;
    size_t out_nwords = 0;
    char msg[256] = "unset";
    bool ok = spirv_robust_apply(m.words, m.nwords, &out, &out_nwords, msg, sizeof msg);
    if (!ok)
        print_error("robust failed: %s\n", msg);
    assert_true(ok);
    assert_string_equal(msg, "");
    assert_non_null(out);

    /* The clamped module must still pass the gate... */
    char cmsg[256];
    bool checked = spirv_check(out, out_nwords, NULL, cmsg, sizeof cmsg);
    if (!checked)
        print_error("robust output refused: %s\n", cmsg);
    assert_true(checked);

    /* ...and the buffer indices must now go through a GLSL.std.450 clamp. */
    struct spirv_module r = {out, out_nwords};
    bool clamped = false;
    for (size_t at = 5; at < r.nwords; at += r.words[at] >> 16)
        if ((r.words[at] & 0xffff) == 12 /* OpExtInst */ &&
            (r.words[at + 4] == 44 || r.words[at + 4] == 45) /* UClamp, SClamp */)
            clamped = true;
    assert_true(clamped);
    /* ...and the pass's output validates (as grading checks) */
    assert_true(spirv_robust_validate(out, out_nwords, cmsg, sizeof cmsg));
    free(out);
    free(m.words);
}

/* Bodies as grading prepares them (compiled without the source text,
 * loops counted, indices clamped): the pass's output validates, with and
 * without loops. */
static void test_robust_output_of_bodies_validates(void **state)
{
    (void)state;
    static const char *const bodies[] = {
        test_correct_body,
        "float s = 0.0;\nfor (int k = 0; k < 8; k++) s += spectrum[0][(k + this.thread.x) % 8];\n"
        "int n = 0;\nwhile (n < half) { n++; }\nreturn s + float(n);\n",
        "return spectrum[this.thread.y][this.thread.x + 100];\n",
    };
    struct compiler *c = compiler_new();
    assert_non_null(c);
    for (size_t b = 0; b < sizeof bodies / sizeof bodies[0]; b++) {
        struct compile_result cr;
        assert_true(compiler_compile(c, bodies[b], strlen(bodies[b]), &cr));
        assert_true(cr.ok);
        /* the compiler's copy of the source text is gone, its lines are not */
        bool lines = false;
        for (size_t at = 5; at < cr.nwords; at += cr.spirv[at] >> 16) {
            uint32_t op = cr.spirv[at] & 0xffff, wc = cr.spirv[at] >> 16;
            assert_int_not_equal(op, 2 /* OpSourceContinued */);
            if (op == 3 /* OpSource */)
                assert_true(wc <= 4);
            lines |= op == 8 /* OpLine */;
        }
        assert_true(lines);
        uint32_t *counted = NULL, *out = NULL;
        size_t counted_n = 0, out_n = 0, nloops = 0;
        char msg[320];
        assert_true(spirv_loops_instrument(cr.spirv, cr.nwords, exercise_default()->loop_budget,
                                           &counted, &counted_n, &nloops, msg, sizeof msg));
        assert_true(spirv_robust_apply(counted, counted_n, &out, &out_n, msg, sizeof msg));
        if (!spirv_robust_validate(out, out_n, msg, sizeof msg))
            fail_msg("body %zu: %s", b, msg);
        free(counted);
        free(out);
        compile_result_clear(&cr);
    }
    compiler_free(c);
}

static void test_robust_refuses_garbage(void **state)
{
    (void)state;
    uint32_t garbage[] = {0x07230203, 0x00010000, 0, 100, 0, 0xdeadbeef, 1, 2, 3};
    uint32_t *out = (uint32_t *)(uintptr_t)0x1;
    size_t out_nwords = 77;
    char msg[256];
    assert_false(spirv_robust_apply(garbage, sizeof garbage / sizeof garbage[0], &out,
                                    &out_nwords, msg, sizeof msg));
    assert_true(strlen(msg) > 0);
    assert_ptr_equal(out, (uint32_t *)(uintptr_t)0x1);
    assert_int_equal(out_nwords, 77);

    assert_false(spirv_robust_apply(garbage, 2, &out, &out_nwords, msg, sizeof msg));
    assert_true(strlen(msg) > 0);
    assert_false(spirv_robust_apply(NULL, 0, &out, &out_nwords, msg, sizeof msg));
    assert_true(strlen(msg) > 0);
}

/* Whose fault a refused module is: the body's only when glslang's own
 * module is refused too (engine/refusal.c). */
static void test_refusal_blames_rightly(void **state)
{
    (void)state;
    struct spirv_module valid = assemble_harness();
    uint32_t garbage[] = {0x07230203, 0x00010000, 0, 100, 0, 0xdeadbeef, 1, 2, 3};
    size_t ngarbage = sizeof garbage / sizeof garbage[0];

    /* a step of ours failed on a valid module: the grader's fault, named */
    struct verdict *v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    refusal_set(v, valid.words, valid.nwords, "loop counter", "ID 7 is not defined");
    assert_int_equal(v->status, VERDICT_INTERNAL_ERROR);
    assert_string_equal(v->message, "The grader's loop counter failed on a valid kernel: "
                                    "ID 7 is not defined.");
    verdict_free(v);
    /* so is a pass that ran out of memory, with nothing rewritten */
    v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    refusal_set(v, valid.words, valid.nwords, "robust-access pass",
                "out of memory in the robust-access pass");
    assert_int_equal(v->status, VERDICT_INTERNAL_ERROR);
    verdict_free(v);

    /* glslang's module is itself invalid: the body's, in the validator's
     * words on that module, not on our rewrite */
    v = verdict_new(VERDICT_INTERNAL_ERROR, NULL);
    refusal_set(v, garbage, ngarbage, "rewrites", "what the rewrite gave");
    assert_int_equal(v->status, VERDICT_REJECTED);
    assert_non_null(strstr(v->message, "could not be made safe to run: the module is not valid"));
    assert_null(strstr(v->message, "what the rewrite gave"));
    verdict_free(v);
    free(valid.words);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_harness_accepted),
        cmocka_unit_test(test_bytes_accepted_unaligned),
        cmocka_unit_test(test_bytes_partial_word_refused),
        cmocka_unit_test(test_local_size_id_accepted),
        REFUSAL(float64),
        REFUSAL(int64),
        REFUSAL(derivatives),
        REFUSAL(extension),
        REFUSAL(second_import),
        REFUSAL(foreign_import),
        REFUSAL(workgroup),
        REFUSAL(extra_binding),
        REFUSAL(third_buffer),
        REFUSAL(duplicate_binding),
        REFUSAL(other_set),
        REFUSAL(push_constant),
        REFUSAL(second_entry),
        REFUSAL(wrong_local_size),
        REFUSAL(wrong_local_size_id),
        REFUSAL(other_mode),
        REFUSAL(plain_input),
        REFUSAL(output_var),
        REFUSAL(sampler),
        REFUSAL(decoration_group),
        REFUSAL(device_address),
        cmocka_unit_test(test_truncated_header),
        cmocka_unit_test(test_truncated_mid_instruction),
        cmocka_unit_test(test_bad_magic),
        cmocka_unit_test(test_word_count_overruns_end),
        cmocka_unit_test(test_zero_word_count),
        cmocka_unit_test(test_unterminated_string),
        cmocka_unit_test(test_oversize),
        cmocka_unit_test(test_empty_and_null),
        cmocka_unit_test(test_robust_accepts_harness),
        cmocka_unit_test(test_robust_output_of_bodies_validates),
        cmocka_unit_test(test_robust_refuses_garbage),
        cmocka_unit_test(test_refusal_blames_rightly),
    };
    return cmocka_run_group_tests_name("spirv_check", tests, NULL, NULL);
}
