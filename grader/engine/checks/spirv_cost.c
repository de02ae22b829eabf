/* spirv_cost.c - per-thread memory and inlined size of a module. */
#include "engine/checks/spirv_cost.h"

#include <spirv/unified1/spirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_module.h"

/* Sizes saturate here: far above every limit, far below overflow. */
#define SATURATED (UINT64_C(1) << 62)

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b > SATURATED ? SATURATED : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > SATURATED / b ? SATURATED : a * b;
}

/* Bytes a value of type `id` occupies; depth bounds hostile nesting. */
static uint64_t type_bytes(const struct spirv_module *m, uint32_t id, int depth)
{
    struct spirv_ins t;
    uint32_t n;
    if (depth > 64 || !spirv_module_def(m, id, &t))
        return SATURATED;
    switch (t.op) {
    case SpvOpTypeBool:
        return 4;
    case SpvOpTypeInt:
    case SpvOpTypeFloat:
        return t.wc >= 3 ? (t.w[2] + 7) / 8 : SATURATED;
    case SpvOpTypeVector:
    case SpvOpTypeMatrix:
        return t.wc >= 4 ? sat_mul(t.w[3], type_bytes(m, t.w[2], depth + 1)) : SATURATED;
    case SpvOpTypeArray:
        /* a length that is not a plain constant is as bad as a huge one */
        if (t.wc < 4 || !spirv_module_constant_u32(m, t.w[3], &n))
            return SATURATED;
        return sat_mul(n, type_bytes(m, t.w[2], depth + 1));
    case SpvOpTypeStruct: {
        uint64_t sum = 0;
        for (uint32_t i = 2; i < t.wc; i++)
            sum = sat_add(sum, type_bytes(m, t.w[i], depth + 1));
        return sum;
    }
    case SpvOpTypePointer:
        return 8;
    default:
        return SATURATED;
    }
}

/* The NUL-terminated name OpName gives id, copied into buf ("" if none). */
static void name_of(const struct spirv_module *m, uint32_t id, char *buf, size_t bufsz)
{
    struct spirv_ins ins;
    buf[0] = '\0';
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op != SpvOpName || ins.wc < 3 || ins.w[1] != id)
            continue;
        const char *s = (const char *)(ins.w + 2);
        size_t room = (ins.wc - 2) * 4, k = 0;
        while (k < room && s[k] && k + 1 < bufsz) {
            /* a name is an identifier; anything else is not copied */
            char c = s[k];
            bool ident = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                         (c >= '0' && c <= '9') || c == '_';
            buf[k++] = ident ? c : '?';
        }
        buf[k] = '\0';
        return;
    }
}

static void human_bytes(uint64_t n, char *buf, size_t bufsz)
{
    if (n >= SATURATED)
        snprintf(buf, bufsz, "an unbounded amount");
    else if (n >= 1024 * 1024)
        snprintf(buf, bufsz, "%.1f MiB", (double)n / (1024.0 * 1024.0));
    else if (n >= 1024)
        snprintf(buf, bufsz, "%.1f KiB", (double)n / 1024.0);
    else
        snprintf(buf, bufsz, "%llu bytes", (unsigned long long)n);
}

static bool check_private_memory(const struct spirv_module *m, char *msg, size_t msgsz)
{
    struct spirv_ins ins, ptr;
    uint64_t total = 0, largest = 0;
    uint32_t largest_id = 0;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op != SpvOpVariable || ins.wc < 4 ||
            (ins.w[3] != SpvStorageClassFunction && ins.w[3] != SpvStorageClassPrivate))
            continue;
        if (!spirv_module_def(m, ins.result_type, &ptr) || ptr.op != SpvOpTypePointer)
            continue;
        uint64_t bytes = type_bytes(m, ptr.w[3], 0);
        total = sat_add(total, bytes);
        if (bytes > largest) {
            largest = bytes;
            largest_id = ins.result;
        }
    }
    if (total <= SPIRV_COST_MAX_PRIVATE_BYTES)
        return true;
    char name[64], size[32], big[32];
    name_of(m, largest_id, name, sizeof name);
    human_bytes(total, size, sizeof size);
    human_bytes(largest, big, sizeof big);
    snprintf(msg, msgsz, "your code's local variables take %s per thread (the largest, %s%s%s, "
             "%s); a thread may have at most %u KiB: use a few floats, not big arrays",
             size, name[0] ? "'" : "", name[0] ? name : "an array", name[0] ? "'" : "", big,
             SPIRV_COST_MAX_PRIVATE_BYTES / 1024);
    return false;
}

struct function_size {
    uint32_t id;
    size_t at;              /* word offset of its OpFunction */
    uint64_t own;           /* instructions in its body */
    uint64_t inlined;       /* with every call inlined; 0 until known */
    bool visiting;
};

static struct function_size *find_function(struct function_size *f, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (f[i].id == id)
            return &f[i];
    return NULL;
}

/* The inlined size of function f, by depth-first search over its calls.
 * A call cycle (recursion, which GLSL forbids) counts as unbounded. */
static uint64_t inlined_size(const struct spirv_module *m, struct function_size *all, size_t n,
                             struct function_size *f, int depth)
{
    struct spirv_ins ins;
    if (f->inlined)
        return f->inlined;
    if (f->visiting || depth > 256)
        return SATURATED;
    f->visiting = true;
    uint64_t total = f->own;
    for (size_t at = f->at; spirv_module_at(m, at, &ins) && ins.op != SpvOpFunctionEnd;
         at += ins.wc) {
        if (ins.op != SpvOpFunctionCall || ins.wc < 4)
            continue;
        struct function_size *callee = find_function(all, n, ins.w[3]);
        total = sat_add(total, callee ? inlined_size(m, all, n, callee, depth + 1) : SATURATED);
    }
    f->visiting = false;
    f->inlined = total ? total : 1;
    return f->inlined;
}

static bool check_inlined_size(const struct spirv_module *m, char *msg, size_t msgsz)
{
    struct spirv_ins ins;
    struct function_size *all = NULL;
    size_t n = 0, cap = 0;
    uint32_t entry = 0;
    bool ok = false;

    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpEntryPoint && ins.wc >= 3)
            entry = ins.w[2];
        if (ins.op == SpvOpFunction) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                struct function_size *grown = realloc(all, cap * sizeof *grown);
                if (!grown) {
                    snprintf(msg, msgsz, "out of memory while sizing the compiled code");
                    goto done;
                }
                all = grown;
            }
            all[n++] = (struct function_size){ .id = ins.result, .at = at };
        } else if (n > 0 && ins.op != SpvOpFunctionEnd && ins.op != SpvOpLine &&
                   ins.op != SpvOpNoLine) {
            all[n - 1].own++;
        }
    }
    struct function_size *main_fn = find_function(all, n, entry);
    uint64_t size = main_fn ? inlined_size(m, all, n, main_fn, 0) : SATURATED;
    if (size <= SPIRV_COST_MAX_INLINED) {
        ok = true;
    } else if (size >= SATURATED) {
        snprintf(msg, msgsz, "your code calls its functions in a cycle or nests calls too "
                 "deeply to be compiled");
    } else {
        snprintf(msg, msgsz, "your code grows to %llu instructions once every function call "
                 "is inlined, as every driver does (the limit is %u): a function called "
                 "from many places, calls nested deep, or macros that expand to huge code "
                 "do this", (unsigned long long)size, SPIRV_COST_MAX_INLINED);
    }
done:
    free(all);
    return ok;
}

bool spirv_cost_check(const uint32_t *words, size_t nwords, char *msg, size_t msgsz)
{
    struct spirv_module m;
    if (!spirv_module_index(&m, words, nwords)) {
        snprintf(msg, msgsz, "the compiled module cannot be read");
        return false;
    }
    bool ok = check_private_memory(&m, msg, msgsz) && check_inlined_size(&m, msg, msgsz);
    spirv_module_clear(&m);
    return ok;
}
