/*
 * The harness contract, as checked here: capability Shader only; no
 * OpExtension; one ext-inst import, GLSL.std.450; Logical GLSL450; one
 * entry point, GLCompute "main", whose only execution mode is a local size
 * of 8 x 2 x 1 (LocalSize, or LocalSizeId on plain constants as glslang
 * writes for Vulkan 1.3); variables only in Function, Private, Input
 * (built-ins only), Uniform and StorageBuffer; exactly two buffers, in set
 * 0 at bindings 0 and 1; no images, samplers or device addresses. Opcodes
 * are not listed one by one: what an unknown opcode could reach is fenced
 * by the capability, type and storage-class rules, and the validator that
 * spirv_robust runs rejects anything malformed that gets past.
 */
#include "engine/checks/spirv_check.h"

#include <spirv/unified1/spirv.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_cost.h"
#include "engine/checks/spirv_module.h"

enum {
    /* The spec's universal limit on the id bound. */
    MAX_ID_BOUND = 0x3fffff,
    /* The harness uses two built-ins; compute has only a handful more. */
    MAX_INPUTS = 16,
    /* The harness has exactly two buffers (bindings 0 and 1). */
    MAX_BUFFERS = 2,
    /* Longest string copied out of a module for a message. */
    NAME_MAX_CHARS = 64,
};

struct buffer_var {
    uint32_t id;
    int64_t set;     /* -1 until decorated */
    int64_t binding; /* -1 until decorated */
};

struct check_state {
    char *msg;
    size_t msgsz;
    bool has_shader;
    uint32_t glsl_import; /* result id of GLSL.std.450, 0 when not seen */
    unsigned entry_points;
    uint32_t entry_id;
    unsigned local_sizes;
    uint32_t want_local[3];        /* the exercise's: out_n x out_planes x 1 */
    uint32_t local_size_target;
    bool local_size_by_id;
    uint32_t local_size_ids[3];
    bool local_size_found[3];
    uint32_t inputs[MAX_INPUTS];
    bool input_builtin[MAX_INPUTS];
    size_t ninputs;
    struct buffer_var buffers[MAX_BUFFERS];
    size_t nbuffers;
    uint32_t refused_capability;   /* set when a capability was the reason */
};

struct name_entry {
    uint32_t value;
    const char *name;
};

/* Capabilities a GLSL body can pull in, by name; others print as numbers. */
static const struct name_entry capability_names[] = {
    {SpvCapabilityMatrix, "Matrix"},
    {SpvCapabilityShader, "Shader"},
    {SpvCapabilityAddresses, "Addresses"},
    {SpvCapabilityLinkage, "Linkage"},
    {SpvCapabilityKernel, "Kernel"},
    {SpvCapabilityFloat16, "Float16"},
    {SpvCapabilityFloat64, "Float64"},
    {SpvCapabilityInt64, "Int64"},
    {SpvCapabilityInt64Atomics, "Int64Atomics"},
    {SpvCapabilityInt16, "Int16"},
    {SpvCapabilityInt8, "Int8"},
    {SpvCapabilityImageQuery, "ImageQuery"},
    {SpvCapabilityDerivativeControl, "DerivativeControl"},
    {SpvCapabilityStorageImageExtendedFormats, "StorageImageExtendedFormats"},
    {SpvCapabilityGroupNonUniform, "GroupNonUniform"},
    {SpvCapabilityGroupNonUniformVote, "GroupNonUniformVote"},
    {SpvCapabilityGroupNonUniformArithmetic, "GroupNonUniformArithmetic"},
    {SpvCapabilityGroupNonUniformBallot, "GroupNonUniformBallot"},
    {SpvCapabilityGroupNonUniformShuffle, "GroupNonUniformShuffle"},
    {SpvCapabilityGroupNonUniformShuffleRelative, "GroupNonUniformShuffleRelative"},
    {SpvCapabilityGroupNonUniformClustered, "GroupNonUniformClustered"},
    {SpvCapabilityGroupNonUniformQuad, "GroupNonUniformQuad"},
    {SpvCapabilityStorageBuffer16BitAccess, "StorageBuffer16BitAccess"},
    {SpvCapabilityStorageBuffer8BitAccess, "StorageBuffer8BitAccess"},
    {SpvCapabilityVariablePointersStorageBuffer, "VariablePointersStorageBuffer"},
    {SpvCapabilityVariablePointers, "VariablePointers"},
    {SpvCapabilityVulkanMemoryModel, "VulkanMemoryModel"},
    {SpvCapabilityPhysicalStorageBufferAddresses, "PhysicalStorageBufferAddresses"},
    {SpvCapabilityRuntimeDescriptorArray, "RuntimeDescriptorArray"},
    {SpvCapabilityShaderClockKHR, "ShaderClockKHR"},
};

/* Execution modes a GLSL layout or intrinsic can ask for, by name. */
static const struct name_entry execution_mode_names[] = {
    {SpvExecutionModeLocalSizeHint, "LocalSizeHint"},
    {SpvExecutionModeSubgroupSize, "SubgroupSize"},
    {SpvExecutionModeSubgroupsPerWorkgroup, "SubgroupsPerWorkgroup"},
    {SpvExecutionModeLocalSizeHintId, "LocalSizeHintId"},
    {SpvExecutionModeDerivativeGroupQuadsNV, "DerivativeGroupQuadsNV"},
    {SpvExecutionModeDerivativeGroupLinearNV, "DerivativeGroupLinearNV"},
    {SpvExecutionModeDenormPreserve, "DenormPreserve"},
    {SpvExecutionModeDenormFlushToZero, "DenormFlushToZero"},
    {SpvExecutionModeSignedZeroInfNanPreserve, "SignedZeroInfNanPreserve"},
    {SpvExecutionModeRoundingModeRTE, "RoundingModeRTE"},
    {SpvExecutionModeRoundingModeRTZ, "RoundingModeRTZ"},
};

/* Writes a formatted reason into the caller's buffer; always returns false. */
static bool refuse(struct check_state *st, const char *fmt, ...)
{
    if (st->msg != NULL && st->msgsz > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->msg, st->msgsz, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The name of `value` in `table`, else "number N" written into buf. */
static const char *lookup_name(const struct name_entry *table, size_t n, uint32_t value,
                               char *buf, size_t bufsz)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].value == value)
            return table[i].name;
    snprintf(buf, bufsz, "number %u", (unsigned)value);
    return buf;
}

static const char *capability_name(uint32_t cap, char *buf, size_t bufsz)
{
    return lookup_name(capability_names, sizeof capability_names / sizeof capability_names[0],
                       cap, buf, bufsz);
}

static const char *execution_mode_name(uint32_t mode, char *buf, size_t bufsz)
{
    return lookup_name(execution_mode_names,
                       sizeof execution_mode_names / sizeof execution_mode_names[0], mode,
                       buf, bufsz);
}

/* The plain reason for a capability that only a number type asks for. */
static const char *wide_type_phrase(uint32_t cap)
{
    switch (cap) {
    case SpvCapabilityFloat64:
        return "double precision is not available in this exercise; use float";
    case SpvCapabilityInt64:
        return "64-bit integers are not available in this exercise; use int or uint";
    case SpvCapabilityFloat16:
        return "16-bit floats are not available in this exercise; use float";
    case SpvCapabilityInt16:
    case SpvCapabilityInt8:
        return "8- and 16-bit integers are not available in this exercise; use int or uint";
    default:
        return NULL;
    }
}

/* The scalar type and width a capability of wide_type_phrase() is about. */
static bool capability_scalar(uint32_t cap, uint32_t *op, uint32_t *width)
{
    switch (cap) {
    case SpvCapabilityFloat64: *op = SpvOpTypeFloat; *width = 64; return true;
    case SpvCapabilityFloat16: *op = SpvOpTypeFloat; *width = 16; return true;
    case SpvCapabilityInt64: *op = SpvOpTypeInt; *width = 64; return true;
    case SpvCapabilityInt16: *op = SpvOpTypeInt; *width = 16; return true;
    case SpvCapabilityInt8: *op = SpvOpTypeInt; *width = 8; return true;
    default: return false;
    }
}

/* What a student declared to get a storage class, in their words. */
static const char *storage_class_phrase(uint32_t sc)
{
    switch (sc) {
    case SpvStorageClassWorkgroup: return "shared (Workgroup) memory";
    case SpvStorageClassPushConstant: return "push constants (PushConstant)";
    case SpvStorageClassUniformConstant:
        return "samplers, images or other opaque uniforms (UniformConstant)";
    case SpvStorageClassOutput: return "output variables (Output)";
    case SpvStorageClassImage: return "image memory (Image)";
    case SpvStorageClassPhysicalStorageBuffer:
        return "buffer device addresses (PhysicalStorageBuffer)";
    case SpvStorageClassCrossWorkgroup: return "OpenCL global memory (CrossWorkgroup)";
    case SpvStorageClassGeneric: return "generic pointers (Generic)";
    case SpvStorageClassAtomicCounter: return "atomic counters (AtomicCounter)";
    default: return NULL;
    }
}

static bool storage_class_allowed(uint32_t sc)
{
    return sc == SpvStorageClassFunction || sc == SpvStorageClassPrivate ||
           sc == SpvStorageClassInput || sc == SpvStorageClassUniform ||
           sc == SpvStorageClassStorageBuffer;
}

static bool refuse_storage_class(struct check_state *st, uint32_t sc)
{
    const char *phrase = storage_class_phrase(sc);
    if (phrase != NULL)
        return refuse(st, "your code uses %s, which this exercise does not allow", phrase);
    return refuse(st, "your code uses memory in SPIR-V storage class %u, which this "
                      "exercise does not allow", (unsigned)sc);
}

/*
 * Reads the literal string starting at word `first` of the instruction
 * `ins` of `wc` words. Copies at most bufsz - 1 bytes (non-printable bytes
 * as '?', so a hostile name cannot smuggle control characters into the
 * message) and sets *len to the full length. Returns false when the string
 * has no NUL inside the instruction: reading on would leave it.
 */
static bool read_string(const uint32_t *ins, size_t wc, size_t first,
                        char *buf, size_t bufsz, size_t *len)
{
    size_t n = 0;
    for (size_t w = first; w < wc; w++) {
        for (unsigned b = 0; b < 4; b++) {
            unsigned char c = (unsigned char)(ins[w] >> (8 * b));
            if (c == 0) {
                buf[n < bufsz ? n : bufsz - 1] = '\0';
                *len = n;
                return true;
            }
            if (n + 1 < bufsz)
                buf[n] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
            n++;
        }
    }
    return false;
}

/* True when a string read by read_string (`got`, full length `len`) is `want`. */
static bool string_is(const char *got, size_t len, const char *want)
{
    return len == strlen(want) && strcmp(got, want) == 0;
}

static int find_input(const struct check_state *st, uint32_t id)
{
    for (size_t i = 0; i < st->ninputs; i++)
        if (st->inputs[i] == id)
            return (int)i;
    return -1;
}

static struct buffer_var *find_buffer(struct check_state *st, uint32_t id)
{
    for (size_t i = 0; i < st->nbuffers; i++)
        if (st->buffers[i].id == id)
            return &st->buffers[i];
    return NULL;
}

static bool check_header(struct check_state *st, const uint32_t *words, size_t nwords)
{
    if (words == NULL && nwords > 0)
        return refuse(st, "the compiled module is missing");
    if (nwords > SPIRV_CHECK_MAX_BYTES / 4)
        return refuse(st, "the compiled module is too large (over the limit of %u bytes)",
                      (unsigned)SPIRV_CHECK_MAX_BYTES);
    if (nwords < SPIRV_HEADER_WORDS)
        return refuse(st, "the compiled module is truncated: it is shorter than a "
                          "SPIR-V header");
    if (words[0] != SpvMagicNumber)
        return refuse(st, "the compiled module has a bad magic number (0x%08x), so it "
                          "is not SPIR-V in this machine's byte order",
                      (unsigned)words[0]);
    uint32_t version = words[1];
    uint32_t major = (version >> 16) & 0xff, minor = (version >> 8) & 0xff;
    if ((version & 0xff0000ffu) != 0 || major != 1 || minor > 6)
        return refuse(st, "the compiled module has an unknown SPIR-V version (0x%08x)",
                      (unsigned)version);
    /* Every id is defined by an instruction of two words or more, so an
     * honest module's bound is below its length in words (about a sixth,
     * for glslang's output). A bound near the spec's limit leaves the
     * robust-access pass no ids to make, and SPIRV-Tools then dereferences
     * a null instruction (found by fuzz/fuzz_spirv.c). */
    if (words[3] == 0 || words[3] > MAX_ID_BOUND || words[3] > nwords)
        return refuse(st, "the compiled module has an impossible id bound (%u)",
                      (unsigned)words[3]);
    if (words[4] != 0)
        return refuse(st, "the compiled module has a non-zero schema word");
    return true;
}

/* Refuses an instruction whose length does not fit its opcode. */
static bool malformed(struct check_state *st, uint32_t op, size_t at)
{
    return refuse(st, "the compiled module is malformed: a bad instruction (opcode "
                      "%u) at word %zu", (unsigned)op, at);
}

/* Capabilities, extensions and extended instruction sets: what the
 * module may use at all. */
static bool check_capability(struct check_state *st, const uint32_t *ins, uint32_t wc,
                             uint32_t op, size_t at)
{
    char name[NAME_MAX_CHARS];
    size_t len;
    char num[32];
    switch (op) {
    case SpvOpCapability:
        if (wc != 2)
            return malformed(st, op, at);
        if (ins[1] == SpvCapabilityShader) {
            st->has_shader = true;
            break;
        }
        st->refused_capability = ins[1];
        if (wide_type_phrase(ins[1]))
            return refuse(st, "%s", wide_type_phrase(ins[1]));
        return refuse(st, "your code needs the SPIR-V capability %s, which this "
                          "exercise does not allow (only Shader)",
                      capability_name(ins[1], num, sizeof num));

    case SpvOpExtension:
        /* An extension unlocks features this checker does not know about. */
        if (!read_string(ins, wc, 1, name, sizeof name, &len))
            return malformed(st, op, at);
        return refuse(st, "your code enables the SPIR-V extension %s, which this "
                          "exercise does not allow", name);

    case SpvOpExtInstImport:
        if (wc < 3 || !read_string(ins, wc, 2, name, sizeof name, &len))
            return malformed(st, op, at);
        if (!string_is(name, len, "GLSL.std.450"))
            return refuse(st, "your code imports the extended instruction set \"%s\"; "
                              "only GLSL.std.450 is allowed", name);
        if (st->glsl_import != 0)
            return refuse(st, "the compiled module imports an extended instruction "
                              "set twice; only one GLSL.std.450 import is allowed");
        st->glsl_import = ins[1];
        break;

    case SpvOpExtInst:
        if (wc < 5)
            return malformed(st, op, at);
        if (st->glsl_import == 0 || ins[3] != st->glsl_import)
            return refuse(st, "the compiled module calls an extended instruction "
                              "outside GLSL.std.450");
        break;
    default:
        break;
    }
    return true;
}

/* An execution mode instruction may only set the local size (as `mode`,
 * by literals or by ids), and only once. */
static bool check_local_size_mode(struct check_state *st, const uint32_t *ins, uint32_t wc,
                                  uint32_t op, size_t at, uint32_t mode)
{
    char num[32];
    if (wc < 3)
        return malformed(st, op, at);
    if (ins[2] != mode)
        return refuse(st, "your code sets the execution mode %s; only the "
                          "harness's local size is allowed",
                      execution_mode_name(ins[2], num, sizeof num));
    if (wc != 6)
        return malformed(st, op, at);
    if (++st->local_sizes > 1)
        return refuse(st, "the compiled module sets the local size twice");
    return true;
}

/* The memory model, the entry point and its execution modes: one
 * GLCompute main with the harness's local size. */
static bool check_entry_point(struct check_state *st, const uint32_t *ins, uint32_t wc,
                              uint32_t op, size_t at)
{
    char name[NAME_MAX_CHARS];
    size_t len;
    switch (op) {
    case SpvOpMemoryModel:
        if (wc != 3)
            return malformed(st, op, at);
        /* Physical addressing would let pointers be forged from integers. */
        if (ins[1] != SpvAddressingModelLogical || ins[2] != SpvMemoryModelGLSL450)
            return refuse(st, "your code changes the memory model (addressing %u, "
                              "memory %u); only Logical GLSL450 is allowed",
                          (unsigned)ins[1], (unsigned)ins[2]);
        break;

    case SpvOpEntryPoint:
        if (wc < 4 || !read_string(ins, wc, 3, name, sizeof name, &len))
            return malformed(st, op, at);
        if (++st->entry_points > 1)
            return refuse(st, "the compiled module has more than one entry point; "
                              "only the harness's main is allowed");
        if (ins[1] != SpvExecutionModelGLCompute)
            return refuse(st, "the entry point is not a compute shader (execution "
                              "model %u)", (unsigned)ins[1]);
        if (!string_is(name, len, "main"))
            return refuse(st, "the entry point is named \"%s\", not main", name);
        st->entry_id = ins[2];
        break;

    case SpvOpExecutionMode:
        if (!check_local_size_mode(st, ins, wc, op, at, SpvExecutionModeLocalSize))
            return false;
        /* The runner dispatches out_n x out_planes x 1 threads per run: one
         * per cell. */
        if (ins[3] != st->want_local[0] || ins[4] != st->want_local[1] ||
            ins[5] != st->want_local[2])
            return refuse(st, "the local size must be %u x %u x %u as the harness sets "
                              "it, not %u x %u x %u",
                          (unsigned)st->want_local[0], (unsigned)st->want_local[1],
                          (unsigned)st->want_local[2],
                          (unsigned)ins[3], (unsigned)ins[4], (unsigned)ins[5]);
        st->local_size_target = ins[1];
        break;

    case SpvOpExecutionModeId:
        /* glslang says LocalSizeId for Vulkan 1.3; the sizes are checked later. */
        if (!check_local_size_mode(st, ins, wc, op, at, SpvExecutionModeLocalSizeId))
            return false;
        st->local_size_target = ins[1];
        st->local_size_by_id = true;
        memcpy(st->local_size_ids, ins + 3, sizeof st->local_size_ids);
        break;
    default:
        break;
    }
    return true;
}

/* Decorations: bindings only on the harness's two buffers, in set 0. */
static bool check_decoration(struct check_state *st, const uint32_t *ins, uint32_t wc,
                             uint32_t op, size_t at)
{
    switch (op) {
    case SpvOpDecorationGroup:
    case SpvOpGroupDecorate:
    case SpvOpGroupMemberDecorate:
        /* Groups could hand a Binding to a variable out of this checker's sight. */
        return refuse(st, "the compiled module uses decoration groups, which this "
                          "exercise does not allow");

    case SpvOpDecorate:
        if (wc < 3)
            return malformed(st, op, at);
        if (ins[2] == SpvDecorationBinding || ins[2] == SpvDecorationDescriptorSet) {
            if (wc != 4)
                return malformed(st, op, at);
            if (ins[2] == SpvDecorationBinding && ins[3] > 1)
                return refuse(st, "your code declares a resource at binding %u; the "
                                  "harness has only bindings 0 and 1", (unsigned)ins[3]);
            if (ins[2] == SpvDecorationDescriptorSet && ins[3] != 0)
                return refuse(st, "your code declares a resource in descriptor set %u; "
                                  "the harness uses only set 0", (unsigned)ins[3]);
        }
        break;

    case SpvOpDecorateId:
    case SpvOpDecorateString:
    case SpvOpMemberDecorate:
    case SpvOpMemberDecorateString: {
        /* These forms never carry bindings in a valid module; refuse a hostile one. */
        size_t dec_at = (op == SpvOpMemberDecorate || op == SpvOpMemberDecorateString) ? 3 : 2;
        if (wc <= dec_at)
            return malformed(st, op, at);
        if (ins[dec_at] == SpvDecorationBinding || ins[dec_at] == SpvDecorationDescriptorSet)
            return refuse(st, "the compiled module puts a binding on something other "
                              "than a buffer variable");
        break;
    }
    default:
        break;
    }
    return true;
}

/* Types, pointers and variables: no images, samplers or device
 * addresses; memory only in the storage classes the harness uses. */
static bool check_type(struct check_state *st, const uint32_t *ins, uint32_t wc,
                       uint32_t op, size_t at)
{
    switch (op) {
    case SpvOpTypeImage:
    case SpvOpTypeSampler:
    case SpvOpTypeSampledImage:
        return refuse(st, "your code uses images or samplers, which this exercise does "
                          "not allow");

    case SpvOpTypeForwardPointer:
        return refuse(st, "your code uses forward pointer types (buffer device "
                          "addresses), which this exercise does not allow");

    case SpvOpTypePointer:
        if (wc != 4)
            return malformed(st, op, at);
        if (!storage_class_allowed(ins[2]))
            return refuse_storage_class(st, ins[2]);
        break;

    case SpvOpVariable:
        if (wc < 4)
            return malformed(st, op, at);
        if (!storage_class_allowed(ins[3]))
            return refuse_storage_class(st, ins[3]);
        if (ins[3] == SpvStorageClassInput) {
            if (st->ninputs == MAX_INPUTS)
                return refuse(st, "the compiled module declares too many inputs");
            st->inputs[st->ninputs++] = ins[2];
        } else if (ins[3] == SpvStorageClassUniform ||
                   ins[3] == SpvStorageClassStorageBuffer) {
            if (st->nbuffers == MAX_BUFFERS)
                return refuse(st, "your code declares a buffer or uniform block of its "
                                  "own; the harness's two buffers are the only ones "
                                  "allowed");
            st->buffers[st->nbuffers++] = (struct buffer_var){ins[2], -1, -1};
        }
        break;
    default:
        break;
    }
    return true;
}

/*
 * First pass: walks every instruction, checking its length, and checks
 * everything that one instruction decides on its own, by opcode family.
 * Collects the Input and buffer variables for the second pass.
 */
static bool check_instructions(struct check_state *st, const uint32_t *words, size_t nwords)
{
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords;) {
        uint32_t wc = words[at] >> 16, op = words[at] & 0xffff;
        if (wc == 0)
            return refuse(st, "the compiled module is malformed: an instruction at word "
                              "%zu has a word count of zero", at);
        if (wc > nwords - at)
            return refuse(st, "the compiled module is truncated: the instruction at word "
                              "%zu has a word count of %u that overruns the end",
                          at, (unsigned)wc);
        const uint32_t *ins = words + at;
        if (!check_capability(st, ins, wc, op, at) || !check_entry_point(st, ins, wc, op, at) ||
            !check_decoration(st, ins, wc, op, at) || !check_type(st, ins, wc, op, at))
            return false;
        at += wc;
    }
    return true;
}

/*
 * A LocalSizeId size must be a plain 32-bit OpConstant of the harness's
 * value: a specialization constant could be changed at pipeline creation.
 */
static bool check_local_size_constant(struct check_state *st, const uint32_t *ins)
{
    const uint32_t *want = st->want_local;
    for (size_t k = 0; k < 3; k++) {
        if (ins[2] != st->local_size_ids[k])
            continue;
        if ((ins[0] >> 16) != 4 || ins[3] != want[k])
            return refuse(st, "the local size must be %u x %u x %u as the harness sets it",
                          (unsigned)want[0], (unsigned)want[1], (unsigned)want[2]);
        st->local_size_found[k] = true;
    }
    return true;
}

/*
 * Second pass: decorations come before the variables they decorate, so
 * they are matched to the variables found by the first pass; constants
 * come after the execution modes that name them. The first pass has
 * checked every length.
 */
static bool check_references(struct check_state *st, const uint32_t *words, size_t nwords)
{
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords; at += words[at] >> 16) {
        const uint32_t *ins = words + at;
        uint32_t op = ins[0] & 0xffff;
        if (op == SpvOpConstant && st->local_size_by_id && (ins[0] >> 16) >= 4) {
            if (!check_local_size_constant(st, ins))
                return false;
            continue;
        }
        if (op != SpvOpDecorate)
            continue;
        uint32_t target = ins[1], decoration = ins[2];
        if (decoration == SpvDecorationBuiltIn) {
            int i = find_input(st, target);
            if (i >= 0)
                st->input_builtin[i] = true;
        } else if (decoration == SpvDecorationBinding ||
                   decoration == SpvDecorationDescriptorSet) {
            struct buffer_var *buf = find_buffer(st, target);
            if (buf == NULL)
                return refuse(st, "the compiled module puts a binding on something other "
                                  "than a buffer variable");
            int64_t *slot = decoration == SpvDecorationBinding ? &buf->binding : &buf->set;
            if (*slot != -1)
                return refuse(st, "the compiled module decorates a buffer with two "
                                  "bindings");
            *slot = ins[3];
        }
    }
    return true;
}

/* Checks what only the whole module can show. */
static bool check_totals(struct check_state *st)
{
    if (!st->has_shader)
        return refuse(st, "the compiled module does not declare the Shader capability");
    if (st->entry_points == 0)
        return refuse(st, "the compiled module has no entry point");
    if (st->local_sizes == 0 || st->local_size_target != st->entry_id)
        return refuse(st, "the compiled module does not set the harness's local size on "
                          "its entry point");
    if (st->local_size_by_id &&
        !(st->local_size_found[0] && st->local_size_found[1] && st->local_size_found[2]))
        return refuse(st, "the local size must be %u x %u x %u as the harness sets it, with "
                          "plain constants", (unsigned)st->want_local[0],
                      (unsigned)st->want_local[1], (unsigned)st->want_local[2]);
    for (size_t i = 0; i < st->ninputs; i++)
        if (!st->input_builtin[i])
            return refuse(st, "your code declares an input variable that is not a "
                              "built-in, which this exercise does not allow");
    if (st->nbuffers != MAX_BUFFERS)
        return refuse(st, "the compiled module does not declare the harness's two "
                          "buffers");
    for (size_t i = 0; i < st->nbuffers; i++)
        if (st->buffers[i].set != 0 || st->buffers[i].binding < 0)
            return refuse(st, "a buffer in the compiled module is not in descriptor set 0 "
                              "with a binding");
    if (st->buffers[0].binding == st->buffers[1].binding)
        return refuse(st, "your code declares a second buffer at binding %d (a duplicate "
                          "binding); the harness has one buffer each at bindings 0 and 1",
                      (int)st->buffers[0].binding);
    return true;
}

struct wide_type {
    uint32_t op, width;
};

/* Whether type id is, or is made of, the scalar type w names. */
static bool is_wide(const struct spirv_module *m, uint32_t id, const struct wide_type *w,
                    int depth)
{
    struct spirv_ins t;
    if (depth > 16 || !spirv_module_def(m, id, &t))
        return false;
    switch (t.op) {
    case SpvOpTypeFloat:
    case SpvOpTypeInt:
        return t.op == w->op && t.wc >= 3 && t.w[2] == w->width;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
    case SpvOpTypeArray:
    case SpvOpTypeRuntimeArray:
        return t.wc >= 3 && is_wide(m, t.w[2], w, depth + 1);
    case SpvOpTypePointer:
        return t.wc >= 4 && is_wide(m, t.w[3], w, depth + 1);
    default:
        return false;
    }
}

/* An instruction that makes or stores a value of the wide type. */
static bool uses_wide(const struct spirv_module *m, const struct spirv_ins *ins, void *arg)
{
    struct spirv_ins value;
    if (ins->result_type && is_wide(m, ins->result_type, arg, 0))
        return true;
    return ins->op == SpvOpStore && ins->wc >= 3 && spirv_module_def(m, ins->w[2], &value) &&
           value.result_type && is_wide(m, value.result_type, arg, 0);
}

/* The body line where the type a refused capability is for is first used. */
static int capability_line(const uint32_t *words, size_t nwords, uint32_t cap)
{
    struct wide_type w;
    struct spirv_module m;
    int line = 0;
    if (!capability_scalar(cap, &w.op, &w.width) || !spirv_module_index(&m, words, nwords))
        return 0;
    line = spirv_module_first_line(&m, uses_wide, &w);
    spirv_module_clear(&m);
    return line;
}

bool spirv_check(const uint32_t *words, size_t nwords, int *line, char *msg, size_t msgsz)
{
    return spirv_check_exercise(exercise_default(), words, nwords, line, msg, msgsz);
}

bool spirv_check_exercise(const struct exercise *e, const uint32_t *words, size_t nwords,
                          int *line, char *msg, size_t msgsz)
{
    struct check_state st = {.msg = msg, .msgsz = msgsz,
                             .want_local = { (uint32_t)e->out_n, (uint32_t)e->out_planes, 1 }};
    if (msg != NULL && msgsz > 0)
        msg[0] = '\0';
    if (line)
        *line = 0;
    bool ok = check_header(&st, words, nwords) &&
              check_instructions(&st, words, nwords) &&
              check_references(&st, words, nwords) &&
              check_totals(&st) &&
              spirv_cost_check(words, nwords, msg, msgsz);
    if (!ok && line && st.refused_capability)
        *line = capability_line(words, nwords, st.refused_capability);
    return ok;
}

bool spirv_check_bytes(const void *bytes, size_t nbytes, char *msg, size_t msgsz)
{
    struct check_state st = {.msg = msg, .msgsz = msgsz};
    if (msg != NULL && msgsz > 0)
        msg[0] = '\0';
    if (bytes == NULL && nbytes > 0)
        return refuse(&st, "the compiled module is missing");
    if (nbytes > SPIRV_CHECK_MAX_BYTES)
        return refuse(&st, "the compiled module is too large (over the limit of %u bytes)",
                      (unsigned)SPIRV_CHECK_MAX_BYTES);
    if (nbytes % 4 != 0)
        return refuse(&st, "the compiled module is truncated: %zu bytes is not a whole "
                           "number of 32-bit words", nbytes);
    if ((uintptr_t)bytes % _Alignof(uint32_t) == 0)
        return spirv_check(bytes, nbytes / 4, NULL, msg, msgsz);

    /* Reading words through a misaligned pointer is undefined; copy first. */
    uint32_t *copy = malloc(nbytes);
    if (copy == NULL)
        return refuse(&st, "out of memory while checking the compiled module");
    memcpy(copy, bytes, nbytes);
    bool ok = spirv_check(copy, nbytes / 4, NULL, msg, msgsz);
    free(copy);
    return ok;
}
