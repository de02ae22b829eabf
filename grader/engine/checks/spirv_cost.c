/* spirv_cost.c - per-thread memory and inlined size of a module. */
#include "engine/checks/spirv_cost.h"

#include <spirv/unified1/spirv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
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

/* The name OpName gives a function, without glslang's mangled argument
 * list ("helper(f1;" is "helper"). */
static void function_name(const struct spirv_module *m, uint32_t id, char *buf, size_t bufsz)
{
    name_of(m, id, buf, bufsz);
    buf[strcspn(buf, "?")] = '\0';
}

/* One function of the module, for the memory it takes once inlined. */
struct function_memory {
    uint32_t id;
    size_t at;              /* word offset of its OpFunction */
    uint64_t own;           /* bytes of its own Function variables */
    uint32_t largest_id;    /* its largest variable, and that one's bytes */
    uint64_t largest;
    uint64_t copies;        /* how many times it runs inlined into the entry point */
    int state;              /* 0 new, 1 on the search path, 2 done */
};

struct memory_plan {
    const struct spirv_module *m;
    struct function_memory *f;
    size_t n;
    size_t *order;          /* post-order of the call graph from the entry point */
    size_t norder;
    bool cycle;
};

static struct function_memory *memory_of(struct memory_plan *p, uint32_t id, size_t *index)
{
    for (size_t i = 0; i < p->n; i++)
        if (p->f[i].id == id) {
            *index = i;
            return &p->f[i];
        }
    return NULL;
}

/* Depth-first over the calls of function k; order gets it after its callees. */
static void post_order(struct memory_plan *p, size_t k, int depth)
{
    struct spirv_ins ins;
    struct function_memory *f = &p->f[k];
    if (f->state == 2)
        return;
    if (f->state == 1 || depth > 256) {
        p->cycle = true;    /* recursion, which GLSL forbids: the size check says so */
        return;
    }
    f->state = 1;
    for (size_t at = f->at; spirv_module_at(p->m, at, &ins) && ins.op != SpvOpFunctionEnd;
         at += ins.wc) {
        size_t callee;
        if (ins.op == SpvOpFunctionCall && ins.wc >= 4 && memory_of(p, ins.w[3], &callee))
            post_order(p, callee, depth + 1);
    }
    f->state = 2;
    p->order[p->norder++] = k;
}

/*
 * Bytes of Function and Private variables one thread holds once every call
 * is inlined, as every driver does: a helper's variables count once per
 * call (a helper with a 15 KiB array called 64 times is 1 MiB a thread),
 * Private ones once. Refused past SPIRV_COST_MAX_PRIVATE_BYTES, naming
 * the function and the variable that take the most.
 */
static bool check_private_memory(const struct spirv_module *m, char *msg, size_t msgsz)
{
    struct spirv_ins ins, ptr;
    struct memory_plan p = { .m = m };
    uint64_t globals = 0, global_largest = 0;
    uint32_t entry = 0, global_largest_id = 0;
    size_t cap = 0;
    bool ok = false;

    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpEntryPoint && ins.wc >= 3)
            entry = ins.w[2];
        if (ins.op == SpvOpFunction) {
            if (p.n == cap) {
                cap = cap ? cap * 2 : 16;
                struct function_memory *grown = realloc(p.f, cap * sizeof *grown);
                if (!grown) {
                    snprintf(msg, msgsz, "out of memory while sizing the compiled code");
                    goto done;
                }
                p.f = grown;
            }
            p.f[p.n++] = (struct function_memory){ .id = ins.result, .at = at };
            continue;
        }
        if (ins.op != SpvOpVariable || ins.wc < 4 ||
            (ins.w[3] != SpvStorageClassFunction && ins.w[3] != SpvStorageClassPrivate))
            continue;
        if (!spirv_module_def(m, ins.result_type, &ptr) || ptr.op != SpvOpTypePointer)
            continue;
        uint64_t bytes = type_bytes(m, ptr.w[3], 0);
        if (ins.w[3] == SpvStorageClassPrivate || p.n == 0) {
            globals = sat_add(globals, bytes);
            if (bytes > global_largest)
                global_largest = bytes, global_largest_id = ins.result;
            continue;
        }
        struct function_memory *f = &p.f[p.n - 1];
        f->own = sat_add(f->own, bytes);
        if (bytes > f->largest)
            f->largest = bytes, f->largest_id = ins.result;
    }

    size_t main_index = 0;
    if (!(p.order = malloc((p.n ? p.n : 1) * sizeof *p.order))) {
        snprintf(msg, msgsz, "out of memory while sizing the compiled code");
        goto done;
    }
    uint64_t total = globals;
    if (memory_of(&p, entry, &main_index)) {
        post_order(&p, main_index, 0);
        /* callers before callees: each call adds its caller's copies */
        p.f[main_index].copies = 1;
        for (size_t r = p.norder; r-- > 0;) {
            struct function_memory *f = &p.f[p.order[r]];
            for (size_t at = f->at; spirv_module_at(m, at, &ins) && ins.op != SpvOpFunctionEnd;
                 at += ins.wc) {
                size_t callee;
                if (ins.op == SpvOpFunctionCall && ins.wc >= 4 && memory_of(&p, ins.w[3], &callee))
                    p.f[callee].copies = sat_add(p.f[callee].copies, f->copies);
            }
        }
        for (size_t i = 0; i < p.n; i++)
            total = sat_add(total, sat_mul(p.f[i].copies, p.f[i].own));
    }
    if (p.cycle || total <= SPIRV_COST_MAX_PRIVATE_BYTES) {
        ok = true;
        goto done;
    }

    /* the one that takes the most: a function's variables times its copies */
    const struct function_memory *worst = NULL;
    for (size_t i = 0; i < p.n; i++)
        if (!worst || sat_mul(p.f[i].copies, p.f[i].own) > sat_mul(worst->copies, worst->own))
            worst = &p.f[i];
    char name[64], fname[64], size[32], big[32], each[32];
    human_bytes(total, size, sizeof size);
    if (!worst || sat_mul(worst->copies, worst->own) <= globals) {
        name_of(m, global_largest_id, name, sizeof name);
        human_bytes(global_largest, big, sizeof big);
    } else {
        name_of(m, worst->largest_id, name, sizeof name);
        human_bytes(worst->largest, big, sizeof big);
    }
    if (worst && worst->copies > 1 && sat_mul(worst->copies, worst->own) > globals) {
        function_name(m, worst->id, fname, sizeof fname);
        human_bytes(worst->own, each, sizeof each);
        snprintf(msg, msgsz, "your code's local variables take %s per thread once every call "
                 "is inlined, as every driver does: the function %s%s%s has %s of them (the "
                 "largest, %s%s%s, %s) and runs %llu times; a thread may have at most %u KiB: "
                 "use a few floats, not big arrays", size, fname[0] ? "'" : "",
                 fname[0] ? fname : "(unnamed)", fname[0] ? "'" : "", each,
                 name[0] ? "'" : "", name[0] ? name : "an array", name[0] ? "'" : "", big,
                 (unsigned long long)worst->copies, SPIRV_COST_MAX_PRIVATE_BYTES / 1024);
    } else {
        snprintf(msg, msgsz, "your code's local variables take %s per thread (the largest, "
                 "%s%s%s, %s); a thread may have at most %u KiB: use a few floats, not big "
                 "arrays", size, name[0] ? "'" : "", name[0] ? name : "an array",
                 name[0] ? "'" : "", big, SPIRV_COST_MAX_PRIVATE_BYTES / 1024);
    }
done:
    free(p.order);
    free(p.f);
    return ok;
}

/* GLSL.std.450's Sin (13) through Log2 (30), Determinant (33) and
 * MatrixInverse (34): lavapipe's LLVM turns each into a long polynomial
 * (2,000 sin() took it 1.35 s to compile, 8,000 multiply-adds 53 ms). */
static bool transcendental(uint32_t number)
{
    return (number >= 13 && number <= 30) || number == 33 || number == 34;
}

/* The cost units of one instruction (defaults.h). */
static uint64_t units(const struct spirv_ins *ins, uint32_t glsl_set)
{
    if (ins->op == SpvOpExtInst && ins->wc >= 5 && glsl_set != 0 && ins->w[3] == glsl_set &&
        transcendental(ins->w[4]))
        return COST_TRANSCENDENTAL_UNITS;
    return 1;
}

struct function_size {
    uint32_t id;
    size_t at;              /* word offset of its OpFunction */
    uint64_t inlined;       /* cost units with every call inlined; 0 until known */
    uint64_t run;           /* units it may execute, called once outside any loop */
    bool visiting;
};

static struct function_size *find_function(struct function_size *f, size_t n, uint32_t id)
{
    for (size_t i = 0; i < n; i++)
        if (f[i].id == id)
            return &f[i];
    return NULL;
}

/* What the sizing walk needs throughout. */
struct sizing {
    const struct spirv_module *m;
    struct function_size *all;
    size_t n;
    uint32_t glsl_set;
    uint64_t runs;          /* how often an instruction in a loop may run: the budget + 1 */
};

/*
 * The inlined cost of function f and the units it may execute, by
 * depth-first search over its calls. An instruction inside a loop (from
 * its OpLoopMerge to its merge block's label, which glslang writes after
 * the loop's blocks) runs at most budget + 1 times, since the budget
 * counts the back edges of every loop of the thread together; so does
 * everything a call inside a loop inlines. A call cycle (recursion, which
 * GLSL forbids) counts as unbounded.
 */
static void size_function(struct sizing *z, struct function_size *f, int depth)
{
    struct spirv_ins ins;
    uint32_t merges[64];
    size_t open = 0;
    bool deeper = false;    /* loops nested past merges[]: all of the rest is in a loop */
    if (f->inlined)
        return;
    if (f->visiting || depth > 256) {
        f->inlined = f->run = SATURATED;
        return;
    }
    f->visiting = true;
    uint64_t total = 0, run = 0;
    for (size_t at = f->at; spirv_module_at(z->m, at, &ins) && ins.op != SpvOpFunctionEnd;
         at += ins.wc) {
        if (ins.op == SpvOpLabel && ins.wc >= 2) {
            for (size_t k = open; k-- > 0;)
                if (merges[k] == ins.w[1]) {
                    open = k;
                    break;
                }
        }
        if (ins.op == SpvOpLoopMerge && ins.wc >= 2) {
            if (open < sizeof merges / sizeof *merges)
                merges[open++] = ins.w[1];
            else
                deeper = true;
        }
        bool looped = open > 0 || deeper;
        if (ins.op == SpvOpFunction || ins.op == SpvOpLine || ins.op == SpvOpNoLine)
            continue;
        uint64_t inl = units(&ins, z->glsl_set), exe = inl;
        if (ins.op == SpvOpFunctionCall && ins.wc >= 4) {
            struct function_size *callee = find_function(z->all, z->n, ins.w[3]);
            if (callee) {
                size_function(z, callee, depth + 1);
                inl = callee->inlined;
                exe = looped ? inl : callee->run;
            } else {
                inl = exe = SATURATED;
            }
        }
        total = sat_add(total, inl);
        run = sat_add(run, looped ? sat_mul(exe, z->runs) : exe);
    }
    f->visiting = false;
    f->inlined = total ? total : 1;
    f->run = run ? run : 1;
}

/* The entry point's inlined cost and run cost; SATURATED when unknown. */
static bool measure(const struct spirv_module *m, uint64_t *inlined, uint64_t *run)
{
    struct spirv_ins ins;
    struct sizing z = { .m = m, .runs = (uint64_t)MAX_LOOP_BUDGET + 1 };
    size_t cap = 0;
    uint32_t entry = 0;

    *inlined = *run = SATURATED;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpEntryPoint && ins.wc >= 3)
            entry = ins.w[2];
        if (ins.op == SpvOpExtInstImport && ins.wc >= 3 &&
            !strncmp((const char *)(ins.w + 2), "GLSL.std.450", (ins.wc - 2) * 4))
            z.glsl_set = ins.w[1];
        if (ins.op == SpvOpFunction) {
            if (z.n == cap) {
                cap = cap ? cap * 2 : 16;
                struct function_size *grown = realloc(z.all, cap * sizeof *grown);
                if (!grown) {
                    free(z.all);
                    return false;
                }
                z.all = grown;
            }
            z.all[z.n++] = (struct function_size){ .id = ins.result, .at = at };
        }
    }
    struct function_size *main_fn = find_function(z.all, z.n, entry);
    if (main_fn) {
        size_function(&z, main_fn, 0);
        *inlined = main_fn->inlined;
        *run = main_fn->run;
    }
    free(z.all);
    return true;
}

static bool check_inlined_size(const struct spirv_module *m, char *msg, size_t msgsz)
{
    uint64_t size, run;
    if (!measure(m, &size, &run)) {
        snprintf(msg, msgsz, "out of memory while sizing the compiled code");
        return false;
    }
    if (size >= SATURATED) {
        snprintf(msg, msgsz, "your code calls its functions in a cycle or nests calls too "
                 "deeply to be compiled");
        return false;
    }
    if (size > SPIRV_COST_MAX_INLINED) {
        snprintf(msg, msgsz, "your code costs %llu units once every function call is "
                 "inlined, as every driver does (the limit is %u; an instruction is 1 unit, "
                 "a sin, cos, exp, pow or other transcendental function %u): a function "
                 "called from many places, calls nested deep, or code unrolled by hand or "
                 "by macros do this; use a loop", (unsigned long long)size,
                 SPIRV_COST_MAX_INLINED, COST_TRANSCENDENTAL_UNITS);
        return false;
    }
    if (run > SPIRV_COST_MAX_RUN) {
        snprintf(msg, msgsz, "your code may run %llu cost units per thread (the limit is %u): "
                 "the code inside its loops costs %llu or more, and a thread's loops may "
                 "take %u iterations in all; do less work inside the loops",
                 (unsigned long long)run, SPIRV_COST_MAX_RUN,
                 (unsigned long long)((run - (run > size ? size : 0)) / MAX_LOOP_BUDGET),
                 MAX_LOOP_BUDGET);
        return false;
    }
    return true;
}

bool spirv_cost_measure(const uint32_t *words, size_t nwords, uint64_t *inlined, uint64_t *run)
{
    struct spirv_module m;
    if (!spirv_module_index(&m, words, nwords))
        return false;
    bool ok = measure(&m, inlined, run);
    spirv_module_clear(&m);
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
