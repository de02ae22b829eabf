/*
 * spirv_loops.c - counts every loop iteration of a kernel and stops a
 * thread that runs over the budget (see spirv_loops.h).
 *
 * An iteration is a back edge taken: the branch from the end of a loop's
 * body (its back-edge block) to its header. Entering a loop is not one, so
 * a loop that never runs its body costs nothing. For loop k the header
 * becomes:
 *
 *     (the header's OpLabel)
 *     %step  = OpPhi %uint %zero %entry ... %one %back ...
 *     (the header's own instructions)
 *     %c     = OpLoad %uint %counter
 *     %c1    = OpIAdd %uint %c %step
 *              OpStore %counter %c1
 *     %over  = OpUGreaterThan %bool %c1 %budget
 *     %first = OpIEqual %bool %c %budget         ; this back edge is the budget + 1-th
 *              OpLoopMerge (unchanged)
 *              OpBranchConditional %over %bail %next
 *     %bail  = OpLabel
 *     %old   = OpLoad %uint %mark
 *     %m     = OpSelect %uint %first %k %old      ; the first loop over keeps its mark
 *              OpStore %mark %m
 *              OpReturn / OpReturnValue %null
 *
 * where %next is the header's old branch target. A predecessor of the
 * header is a back edge when its block comes after the header in the
 * function: SPIR-V puts every block after the blocks that dominate it, the
 * back-edge block is dominated by the header, and an entry into the loop
 * is not. When every predecessor is of one kind %step is that constant.
 * A header that ended in a conditional branch keeps it in a new block of
 * its own (%next), and OpPhi instructions that named the header as a
 * predecessor name that block. Once over budget, every loop header a
 * thread reaches returns at once (the counter stays past the budget, and
 * %first is false for all but the first), so the thread finishes: code
 * without loops is finite (GLSL has neither recursion nor goto).
 *
 * Most loops take a cheaper form (find_folds): a `for` or `while` whose
 * header goes straight to its exit test keeps its header's branch, sets
 * the mark there without a block of its own,
 *
 *     %hit   = OpLogicalAnd %bool %over %first
 *     %old   = OpLoad %uint %mark
 *     %m     = OpSelect %uint %hit %k %old
 *              OpStore %mark %m
 *
 * and its exit test, `OpBranchConditional %test %body %merge`, becomes
 *
 *     %within = OpLogicalNot %bool %over
 *     %exit   = OpLogicalAnd %bool %test %within
 *               OpBranchConditional %exit %body %merge
 *
 * (an OpLogicalOr with %over when the merge block is the true target). No
 * edge or block is added, so the module stays valid as it was; the return
 * from inside a loop is what the count cost the driver most (Mesa lowers
 * it to a flag that every later block tests). A thread over budget then
 * leaves the loop by its own exit and runs the code after it, which is
 * finite, and every later loop it reaches, of either form, ends at once
 * (%over stays true); nothing it computes is read, since a marked cell is
 * Time Limit Exceeded whatever its value.
 */
#include "engine/checks/spirv_loops.h"

#include <spirv/unified1/spirv.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/checks/spirv_module.h"

/* A predecessor of a loop header: the block and whether it is a back edge. */
struct pred {
    uint32_t block;
    bool back;
};

struct loop {
    uint32_t header;          /* label of the loop header */
    size_t header_at;         /* word offset of its OpLabel */
    uint32_t function;        /* index of the function that holds it */
    bool split;               /* the header ended in a conditional branch */
    uint32_t merge;           /* label of the loop's merge block */
    uint32_t continue_target; /* label of its continue target */
    uint32_t first_block;     /* the header's one successor (0 for a split header) */
    uint32_t fold_block;      /* the block whose exit test the count joins; 0: none */
    bool merge_if_true;       /* that test's true target is the merge block */
    struct pred *preds;       /* owned, npreds entries */
    size_t npreds, preds_cap;
    /* new ids */
    uint32_t step, c, c1, over, first, old, mark, bail, next, number, hit, within, exit;
};

struct function {
    uint32_t return_type;     /* 0 for void */
    uint32_t null_value;      /* OpConstantNull of the return type, when needed */
};

struct plan {
    struct spirv_module m;
    uint32_t next_id;
    uint32_t uint_type, bool_type;   /* bool_type 0: to be made as new_bool */
    uint32_t new_bool;
    uint32_t mark_var, mark_ptr_type;
    uint32_t counter, zero, one, budget;
    struct loop *loops;
    size_t nloops;
    uint32_t *loop_of;        /* owned: loop_of[label] = loop index + 1 for a header, else 0 */
    uint32_t *fold_of;        /* owned: fold_of[label] = loop index + 1 for a fold block */
    struct function *functions;
    size_t nfunctions;
};

struct words_out {
    uint32_t *w;
    size_t n, cap;
    bool failed;
};

static bool fail(char *msg, size_t msgsz, const char *fmt, ...)
{
    if (msg && msgsz) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msgsz, fmt, ap);
        va_end(ap);
    }
    return false;
}

static void put(struct words_out *o, uint32_t word)
{
    if (o->failed)
        return;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 1024;
        uint32_t *grown = realloc(o->w, cap * sizeof *grown);
        if (!grown) {
            o->failed = true;
            return;
        }
        o->w = grown;
        o->cap = cap;
    }
    o->w[o->n++] = word;
}

/* Emits one instruction: opcode, then n operand words. */
static void emit(struct words_out *o, uint32_t op, size_t n, ...)
{
    va_list ap;
    put(o, (uint32_t)((n + 1) << 16) | op);
    va_start(ap, n);
    for (size_t i = 0; i < n; i++)
        put(o, va_arg(ap, uint32_t));
    va_end(ap);
}

static void copy(struct words_out *o, const struct spirv_ins *ins)
{
    for (uint32_t i = 0; i < ins->wc; i++)
        put(o, ins->w[i]);
}

/* The NUL-terminated literal string of an OpName (target at word 1). */
static bool name_is(const struct spirv_ins *ins, const char *want)
{
    size_t len = strlen(want);
    size_t room = (ins->wc - 2) * 4;
    const char *s = (const char *)(ins->w + 2);
    return len < room && memcmp(s, want, len) == 0 && s[len] == '\0';
}

/* Finds the types, the mark variable, the functions and the loops. */
static bool survey(struct plan *p, char *msg, size_t msgsz)
{
    struct spirv_ins ins, def;
    uint32_t function_count = 0, label = 0;
    size_t cap = 0, fcap = 0, label_at = 0;
    bool in_function = false;

    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&p->m, at, &ins); at += ins.wc) {
        switch (ins.op) {
        case SpvOpTypeInt:
            if (ins.w[2] == 32 && ins.w[3] == 0)
                p->uint_type = ins.result;
            break;
        case SpvOpTypeBool:
            p->bool_type = ins.result;
            break;
        case SpvOpName:
            if (ins.wc >= 3 && name_is(&ins, SPIRV_LOOPS_MARK_NAME) &&
                spirv_module_def(&p->m, ins.w[1], &def) && def.op == SpvOpVariable &&
                def.w[3] == SpvStorageClassPrivate) {
                if (p->mark_var)
                    return fail(msg, msgsz, "two variables are named %s", SPIRV_LOOPS_MARK_NAME);
                p->mark_var = def.result;
                p->mark_ptr_type = def.result_type;
            }
            break;
        case SpvOpFunction:
            if (p->nfunctions == fcap) {
                fcap = fcap ? fcap * 2 : 16;
                struct function *grown = realloc(p->functions, fcap * sizeof *grown);
                if (!grown)
                    return fail(msg, msgsz, "out of memory");
                p->functions = grown;
            }
            if (!spirv_module_def(&p->m, ins.result_type, &def))
                return fail(msg, msgsz, "a function has no return type");
            p->functions[p->nfunctions++] = (struct function){
                .return_type = def.op == SpvOpTypeVoid ? 0 : ins.result_type,
            };
            function_count++;
            in_function = true;
            break;
        case SpvOpFunctionEnd:
            in_function = false;
            break;
        case SpvOpLabel:
            label = ins.result;
            label_at = at;
            break;
        case SpvOpLoopMerge: {
            if (!in_function)
                return fail(msg, msgsz, "a loop outside a function");
            if (ins.wc < 4)
                return fail(msg, msgsz, "a malformed OpLoopMerge");
            struct spirv_ins term;
            if (!spirv_module_at(&p->m, at + ins.wc, &term) ||
                (term.op != SpvOpBranch && term.op != SpvOpBranchConditional))
                return fail(msg, msgsz, "a loop header that does not end in a branch");
            if (p->nloops == cap) {
                cap = cap ? cap * 2 : 16;
                struct loop *grown = realloc(p->loops, cap * sizeof *grown);
                if (!grown)
                    return fail(msg, msgsz, "out of memory");
                p->loops = grown;
            }
            p->loops[p->nloops++] = (struct loop){
                .header = label,
                .header_at = label_at,
                .function = function_count - 1,
                .split = term.op == SpvOpBranchConditional,
                .merge = ins.w[1],
                .continue_target = ins.w[2],
                .first_block = term.op == SpvOpBranch && term.wc >= 2 ? term.w[1] : 0,
            };
            break;
        }
        default:
            break;
        }
    }
    if (p->nloops == 0)
        return true;
    if (!p->uint_type || !p->mark_var)
        return fail(msg, msgsz, "the harness's %s variable is missing", SPIRV_LOOPS_MARK_NAME);
    if (!spirv_module_def(&p->m, p->mark_ptr_type, &def) || def.op != SpvOpTypePointer ||
        def.w[3] != p->uint_type)
        return fail(msg, msgsz, "%s is not a uint", SPIRV_LOOPS_MARK_NAME);
    return true;
}

static bool add_pred(struct loop *l, uint32_t block, bool back)
{
    for (size_t i = 0; i < l->npreds; i++)
        if (l->preds[i].block == block)
            return true;    /* two edges from one block: one OpPhi entry */
    if (l->npreds == l->preds_cap) {
        size_t cap = l->preds_cap ? l->preds_cap * 2 : 4;
        struct pred *grown = realloc(l->preds, cap * sizeof *grown);
        if (!grown)
            return false;
        l->preds = grown;
        l->preds_cap = cap;
    }
    l->preds[l->npreds++] = (struct pred){ block, back };
    return true;
}

/* The block `label` as a predecessor in the rewritten module: a split
 * header's branch moves to its new block (%next). */
static uint32_t pred_label(const struct plan *p, uint32_t label)
{
    uint32_t k = label < p->m.bound ? p->loop_of[label] : 0;
    return k && p->loops[k - 1].split ? p->loops[k - 1].next : label;
}

/* Finds every predecessor of every loop header, and whether it is a back
 * edge (its block comes after the header's, see the top of this file). */
static bool find_preds(struct plan *p, char *msg, size_t msgsz)
{
    struct spirv_ins ins;
    uint32_t label = 0;
    if (!(p->loop_of = calloc(p->m.bound ? p->m.bound : 1, sizeof *p->loop_of)))
        return fail(msg, msgsz, "out of memory");
    for (size_t k = 0; k < p->nloops; k++) {
        if (p->loops[k].header >= p->m.bound || p->loop_of[p->loops[k].header])
            return fail(msg, msgsz, "a block is the header of two loops");
        p->loop_of[p->loops[k].header] = (uint32_t)(k + 1);
    }
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&p->m, at, &ins); at += ins.wc) {
        uint32_t first = 0, last = 0;
        switch (ins.op) {
        case SpvOpLabel:
            label = ins.result;
            continue;
        case SpvOpBranch:
            first = 1, last = 2;
            break;
        case SpvOpBranchConditional:
            first = 2, last = 4;
            break;
        case SpvOpSwitch:
            /* selector, default, then (literal, label) pairs of 32-bit literals */
            first = 2, last = 3;
            break;
        default:
            continue;
        }
        for (uint32_t i = first; i < last && i < ins.wc; i++) {
            uint32_t t = ins.w[i];
            uint32_t k = t < p->m.bound ? p->loop_of[t] : 0;
            if (k && !add_pred(&p->loops[k - 1], label, at > p->loops[k - 1].header_at))
                return fail(msg, msgsz, "out of memory");
        }
        if (ins.op == SpvOpSwitch)
            for (uint32_t i = 4; i < ins.wc; i += 2) {
                uint32_t k = ins.w[i] < p->m.bound ? p->loop_of[ins.w[i]] : 0;
                if (k && !add_pred(&p->loops[k - 1], label, at > p->loops[k - 1].header_at))
                    return fail(msg, msgsz, "out of memory");
            }
    }
    return true;
}

/* Whether the test `cond` is a constant or compares with an integer
 * constant past the budget, read as unsigned (so a negative one counts
 * too, which at worst keeps a loop in the returning form): a loop with
 * such a test can be proved by the driver to run over, see find_folds. */
static bool bound_past_budget(const struct plan *p, uint32_t cond, uint32_t budget)
{
    struct spirv_ins ins;
    if (!spirv_module_def(&p->m, cond, &ins))
        return false;
    if (ins.op == SpvOpConstantTrue || ins.op == SpvOpConstantFalse)
        return true;   /* `while (true)`: only the budget ends it */
    if (ins.wc < 5)
        return false;
    switch (ins.op) {
    case SpvOpSLessThan: case SpvOpSLessThanEqual: case SpvOpSGreaterThan:
    case SpvOpSGreaterThanEqual: case SpvOpULessThan: case SpvOpULessThanEqual:
    case SpvOpUGreaterThan: case SpvOpUGreaterThanEqual: case SpvOpIEqual:
    case SpvOpINotEqual:
        break;
    default:
        return false;
    }
    for (int i = 3; i <= 4; i++) {
        uint32_t v;
        if (spirv_module_constant_u32(&p->m, ins.w[i], &v) && v > budget)
            return true;
    }
    return false;
}

/*
 * Finds the loops whose count can join their own exit test, as glslang
 * writes `for` and `while`: the header's one successor ends in a
 * conditional branch with the loop's merge block as one target. There the
 * test becomes "and within the budget", so the count adds no edge and no
 * block: a return from inside a loop (the other form, see the top of this
 * file) is what the count cost the driver most, since Mesa lowers it to a
 * flag that every later block tests. The block must not be the continue
 * target or a header and hold no OpSelectionMerge; only the header can
 * reach it (into a loop's first block SPIR-V allows no other way than a
 * back edge, and back edges go to the header).
 *
 * A loop whose exit test is a constant (`while (true)`) or compares with an
 * integer constant past the budget (`k < 1000000`) keeps the returning form: the driver can then prove that
 * the budget always ends it, so that nothing after it runs and all its work
 * is dead, and a heavy endless loop is Time Limit Exceeded in milliseconds
 * instead of running its whole budget. A folded loop can run its budget,
 * which is the point of a budget: the fold only spares the compile.
 */
static bool find_folds(struct plan *p, uint32_t budget)
{
    struct spirv_ins ins;
    if (!(p->fold_of = calloc(p->m.bound ? p->m.bound : 1, sizeof *p->fold_of)))
        return false;
    for (size_t k = 0; k < p->nloops; k++) {
        struct loop *l = &p->loops[k];
        uint32_t c = l->first_block;
        if (!c || c >= p->m.bound || !p->m.def[c] || p->loop_of[c] || p->fold_of[c] ||
            c == l->merge || c == l->continue_target)
            continue;
        bool shaped = false;
        for (size_t at = p->m.def[c]; spirv_module_at(&p->m, at, &ins); at += ins.wc) {
            if (at != p->m.def[c] && ins.op == SpvOpLabel)
                break;
            if (ins.op == SpvOpSelectionMerge || ins.op == SpvOpLoopMerge)
                break;
            if (ins.op == SpvOpBranchConditional) {
                shaped = ins.wc >= 4 && (ins.w[2] == l->merge) != (ins.w[3] == l->merge) &&
                         !bound_past_budget(p, ins.w[1], budget);
                l->merge_if_true = ins.w[2] == l->merge;
                break;
            }
            if (ins.op == SpvOpBranch || ins.op == SpvOpSwitch || ins.op == SpvOpReturn ||
                ins.op == SpvOpReturnValue || ins.op == SpvOpUnreachable || ins.op == SpvOpKill)
                break;
        }
        if (shaped) {
            l->fold_block = c;
            p->fold_of[c] = (uint32_t)(k + 1);
        }
    }
    return true;
}

/* Hands out the ids of everything the pass adds. */
static bool assign_ids(struct plan *p, char *msg, size_t msgsz)
{
    uint32_t id = p->m.bound;
    /* a bound this close to the limit leaves no room: refuse rather than wrap */
    uint64_t needed = 7 + (uint64_t)p->nloops * 13 + p->nfunctions;
    if ((uint64_t)id + needed > 0x3fffff)
        return fail(msg, msgsz, "no ids left for the loop counter");
    if (!p->bool_type)
        p->bool_type = p->new_bool = id++;
    p->counter = id++;
    p->zero = id++;
    p->one = id++;
    p->budget = id++;
    for (size_t k = 0; k < p->nloops; k++) {
        struct loop *l = &p->loops[k];
        bool entry = false, back = false;
        for (size_t i = 0; i < l->npreds; i++) {
            back |= l->preds[i].back;
            entry |= !l->preds[i].back;
        }
        /* an OpPhi only when the header is reached both ways */
        l->step = entry && back ? id++ : back ? p->one : p->zero;
        l->c = id++;
        l->c1 = id++;
        l->over = id++;
        l->first = id++;
        l->old = id++;
        l->mark = id++;
        l->bail = id++;
        l->next = l->split ? id++ : 0;
        l->number = id++;
        l->hit = id++;
        l->within = id++;
        l->exit = id++;
        struct function *f = &p->functions[l->function];
        if (!l->fold_block && f->return_type && !f->null_value)
            f->null_value = id++;
    }
    p->next_id = id;
    return true;
}

/* The globals the pass adds, emitted before the first function. */
static void emit_globals(struct words_out *o, const struct plan *p, uint32_t budget)
{
    if (p->new_bool)
        emit(o, SpvOpTypeBool, 1, p->new_bool);
    emit(o, SpvOpConstant, 3, p->uint_type, p->zero, 0u);
    emit(o, SpvOpConstant, 3, p->uint_type, p->one, 1u);
    emit(o, SpvOpConstant, 3, p->uint_type, p->budget, budget);
    for (size_t k = 0; k < p->nloops; k++)
        emit(o, SpvOpConstant, 3, p->uint_type, p->loops[k].number, (uint32_t)(k + 1));
    for (size_t f = 0; f < p->nfunctions; f++)
        if (p->functions[f].null_value)
            emit(o, SpvOpConstantNull, 2, p->functions[f].return_type,
                 p->functions[f].null_value);
    emit(o, SpvOpVariable, 4, p->mark_ptr_type, p->counter, (uint32_t)SpvStorageClassPrivate,
         p->zero);
}

/* The header's first instruction: 1 when it was reached by a back edge. */
static void emit_step(struct words_out *o, const struct plan *p, const struct loop *l)
{
    if (l->step == p->zero || l->step == p->one)
        return;
    put(o, (uint32_t)((3 + 2 * l->npreds) << 16) | SpvOpPhi);
    put(o, p->uint_type);
    put(o, l->step);
    for (size_t i = 0; i < l->npreds; i++) {
        put(o, l->preds[i].back ? p->one : p->zero);
        put(o, pred_label(p, l->preds[i].block));
    }
}

static void emit_count(struct words_out *o, const struct plan *p, const struct loop *l)
{
    emit(o, SpvOpLoad, 3, p->uint_type, l->c, p->counter);
    emit(o, SpvOpIAdd, 4, p->uint_type, l->c1, l->c, l->step);
    emit(o, SpvOpStore, 2, p->counter, l->c1);
    emit(o, SpvOpUGreaterThan, 4, p->bool_type, l->over, l->c1, p->budget);
    /* the count was at the budget: this back edge took iteration budget + 1
     * (a thread that entered a loop already past the budget bails too, but
     * leaves the first loop's mark alone) */
    emit(o, SpvOpIEqual, 4, p->bool_type, l->first, l->c, p->budget);
    if (l->fold_block) {
        /* the mark, without a block of its own: set by the first loop over */
        emit(o, SpvOpLogicalAnd, 4, p->bool_type, l->hit, l->over, l->first);
        emit(o, SpvOpLoad, 3, p->uint_type, l->old, p->mark_var);
        emit(o, SpvOpSelect, 5, p->uint_type, l->mark, l->hit, l->number, l->old);
        emit(o, SpvOpStore, 2, p->mark_var, l->mark);
    }
}

static void emit_bail(struct words_out *o, const struct plan *p, const struct loop *l)
{
    const struct function *f = &p->functions[l->function];
    emit(o, SpvOpLabel, 1, l->bail);
    emit(o, SpvOpLoad, 3, p->uint_type, l->old, p->mark_var);
    emit(o, SpvOpSelect, 5, p->uint_type, l->mark, l->first, l->number, l->old);
    emit(o, SpvOpStore, 2, p->mark_var, l->mark);
    if (f->return_type)
        emit(o, SpvOpReturnValue, 1, f->null_value);
    else
        emit(o, SpvOpReturn, 0);
}

/* A folded loop's exit test: taken as before while within the budget,
 * and the exit once over it. */
static void emit_fold(struct words_out *o, const struct plan *p, const struct loop *l,
                      const struct spirv_ins *branch)
{
    if (l->merge_if_true) {
        emit(o, SpvOpLogicalOr, 4, p->bool_type, l->exit, branch->w[1], l->over);
    } else {
        emit(o, SpvOpLogicalNot, 3, p->bool_type, l->within, l->over);
        emit(o, SpvOpLogicalAnd, 4, p->bool_type, l->exit, branch->w[1], l->within);
    }
    put(o, branch->w[0]);
    put(o, l->exit);
    for (uint32_t i = 2; i < branch->wc; i++)
        put(o, branch->w[i]);
}

/* Copies an OpPhi, naming the new block where it named a split header. */
static void copy_phi(struct words_out *o, const struct plan *p, const struct spirv_ins *ins)
{
    put(o, ins->w[0]);
    put(o, ins->w[1]);
    put(o, ins->w[2]);
    for (uint32_t i = 3; i + 1 < ins->wc; i += 2) {
        put(o, ins->w[i]);
        put(o, pred_label(p, ins->w[i + 1]));
    }
}

/* Copies an OpEntryPoint; from SPIR-V 1.4 on its interface lists every
 * global it uses, the new counter included. */
static void copy_entry_point(struct words_out *o, const struct plan *p,
                             const struct spirv_ins *ins)
{
    bool add = p->m.words[1] >= 0x00010400;
    put(o, ((ins->wc + (add ? 1 : 0)) << 16) | ins->op);
    for (uint32_t i = 1; i < ins->wc; i++)
        put(o, ins->w[i]);
    if (add)
        put(o, p->counter);
}

static bool rewrite(struct words_out *o, const struct plan *p, uint32_t budget)
{
    struct spirv_ins ins, term;
    bool globals_done = false;
    size_t k = 0;
    uint32_t label = 0;

    for (size_t i = 0; i < SPIRV_HEADER_WORDS; i++)
        put(o, i == 3 ? p->next_id : p->m.words[i]);
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&p->m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpFunction && !globals_done) {
            emit_globals(o, p, budget);
            globals_done = true;
        }
        if (ins.op == SpvOpLabel)
            label = ins.result;
        if (ins.op == SpvOpEntryPoint) {
            copy_entry_point(o, p, &ins);
        } else if (ins.op == SpvOpLabel && ins.result < p->m.bound && p->loop_of[ins.result]) {
            copy(o, &ins);
            emit_step(o, p, &p->loops[p->loop_of[ins.result] - 1]);
        } else if (ins.op == SpvOpPhi) {
            copy_phi(o, p, &ins);
        } else if (ins.op == SpvOpBranchConditional && label < p->m.bound && p->fold_of[label]) {
            emit_fold(o, p, &p->loops[p->fold_of[label] - 1], &ins);
        } else if (ins.op == SpvOpLoopMerge) {
            const struct loop *l = &p->loops[k++];
            emit_count(o, p, l);
            copy(o, &ins);
            at += ins.wc;
            if (!spirv_module_at(&p->m, at, &term))
                return false;
            uint32_t target = term.op == SpvOpBranch ? term.w[1] : l->next;
            if (l->fold_block) {
                copy(o, &term);   /* the exit test counts (emit_fold) */
            } else {
                emit(o, SpvOpBranchConditional, 3, l->over, l->bail, target);
                emit_bail(o, p, l);
            }
            if (l->split) {
                emit(o, SpvOpLabel, 1, l->next);
                copy(o, &term);
            }
            ins = term;
        } else {
            copy(o, &ins);
        }
    }
    return !o->failed && k == p->nloops;
}

bool spirv_loops_instrument(const uint32_t *words, size_t nwords, uint32_t budget,
                            uint32_t **out, size_t *out_nwords, size_t *nloops,
                            char *msg, size_t msgsz)
{
    struct plan p = {0};
    struct words_out o = {0};
    bool ok = false;

    *out = NULL;
    *out_nwords = 0;
    *nloops = 0;
    if (budget == 0 || budget == UINT32_MAX)
        return fail(msg, msgsz, "bad loop budget %u", budget);
    if (!spirv_module_index(&p.m, words, nwords)) {
        fail(msg, msgsz, "the module cannot be read");
        goto done;
    }
    if (!survey(&p, msg, msgsz))
        goto done;
    if (p.nloops > 0) {
        if (!find_preds(&p, msg, msgsz))
            goto done;
        if (!find_folds(&p, budget)) {
            fail(msg, msgsz, "out of memory");
            goto done;
        }
        if (!assign_ids(&p, msg, msgsz))
            goto done;
        if (!rewrite(&o, &p, budget)) {
            fail(msg, msgsz, o.failed ? "out of memory" : "a loop header could not be rewritten");
            goto done;
        }
    } else {
        /* nothing to count: the module as it is */
        for (size_t i = 0; i < nwords; i++)
            put(&o, words[i]);
        if (o.failed) {
            fail(msg, msgsz, "out of memory");
            goto done;
        }
    }
    *out = o.w;
    *out_nwords = o.n;
    *nloops = p.nloops;
    o.w = NULL;
    ok = true;
done:
    free(o.w);
    for (size_t k = 0; k < p.nloops; k++)
        free(p.loops[k].preds);
    free(p.loops);
    free(p.loop_of);
    free(p.fold_of);
    free(p.functions);
    spirv_module_clear(&p.m);
    return ok;
}

/* Calls found(k, line) for each loop k (from 1) in module order. */
static bool each_loop(const uint32_t *words, size_t nwords,
                      bool (*found)(uint32_t loop, int line, void *arg), void *arg)
{
    /* A view without the id index: only opcodes and OpLine are read. An
     * OpLine holds until the next one, an OpNoLine or the end of its block. */
    int line = 0;
    uint32_t seen = 0;
    for (size_t at = SPIRV_HEADER_WORDS; at < nwords;) {
        uint32_t wc = words[at] >> 16, op = words[at] & 0xffff;
        if (wc == 0 || wc > nwords - at)
            return false;
        if (op == SpvOpLine && wc >= 4)
            line = (int)words[at + 2];
        else if (op == SpvOpNoLine || op == SpvOpLabel || op == SpvOpFunctionEnd)
            line = 0;
        else if (op == SpvOpLoopMerge && !found(++seen, line, arg))
            return true;
        at += wc;
    }
    return true;
}

struct line_query {
    uint32_t loop;
    int line;
};

static bool match_loop(uint32_t loop, int line, void *arg)
{
    struct line_query *q = arg;
    if (loop != q->loop)
        return true;
    q->line = line;
    return false;
}

int spirv_loops_line(const uint32_t *words, size_t nwords, uint32_t loop)
{
    struct line_query q = { loop, 0 };
    each_loop(words, nwords, match_loop, &q);
    return q.line;
}

struct line_list {
    int *lines;
    size_t n, cap;
    bool failed;
};

static bool append_line(uint32_t loop, int line, void *arg)
{
    struct line_list *l = arg;
    (void)loop;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        int *grown = realloc(l->lines, cap * sizeof *grown);
        if (!grown) {
            l->failed = true;
            return false;
        }
        l->lines = grown;
        l->cap = cap;
    }
    l->lines[l->n++] = line;
    return true;
}

bool spirv_loops_lines(const uint32_t *words, size_t nwords, int **lines, size_t *nloops)
{
    struct line_list l = { NULL, 0, 0, false };
    if (!each_loop(words, nwords, append_line, &l) || l.failed) {
        free(l.lines);
        return false;
    }
    *lines = l.lines;
    *nloops = l.n;
    return true;
}

/* Whether id is an operand of ins (a word past the opcode that is not its
 * result type or result id); a literal of the same value counts too, which
 * errs on the side of leaving a module alone. *pos gets the first place. */
static bool uses_id(const struct spirv_ins *ins, uint32_t id, uint32_t *pos)
{
    unsigned type_at, result_at;
    spirv_result_positions(ins->op, &type_at, &result_at);
    for (uint32_t i = 1; i < ins->wc; i++) {
        if (i != type_at && i != result_at && ins->w[i] == id) {
            *pos = i;
            return true;
        }
    }
    return false;
}

/* Whether ins stores zero into `var` (glslang's initialiser of a global). */
static bool stores_zero(const struct spirv_module *m, const struct spirv_ins *ins, uint32_t var)
{
    uint32_t value;
    return ins->op == SpvOpStore && ins->wc >= 3 && ins->w[1] == var &&
           spirv_module_constant_u32(m, ins->w[2], &value) && value == 0;
}

/* The one instruction of a function that uses id, at the operand place
 * `want_pos` with opcode `want_op`, stores of zero into id aside: its
 * offset, or 0 when there is none, another use, or a loop. */
static size_t only_use(const struct spirv_module *m, uint32_t id, uint32_t want_op,
                       uint32_t want_pos)
{
    struct spirv_ins ins;
    size_t found = 0;
    bool in_function = false;
    uint32_t pos;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpFunction)
            in_function = true;
        if (ins.op == SpvOpLoopMerge)
            return 0;
        if (!in_function || !uses_id(&ins, id, &pos) || stores_zero(m, &ins, id))
            continue;
        if (found || ins.op != want_op || pos != want_pos)
            return 0;
        found = at;
    }
    return found;
}

size_t spirv_loops_drop_mark_store(uint32_t *words, size_t nwords)
{
    struct spirv_module m = { 0 };
    struct spirv_ins ins, def, chain, base;
    uint32_t mark = 0;
    size_t store_at = 0, store_wc = 0;

    if (!spirv_module_index(&m, words, nwords))
        return nwords;
    for (size_t at = SPIRV_HEADER_WORDS; spirv_module_at(&m, at, &ins); at += ins.wc) {
        if (ins.op == SpvOpName && ins.wc >= 3 && name_is(&ins, SPIRV_LOOPS_MARK_NAME) &&
            spirv_module_def(&m, ins.w[1], &def) && def.op == SpvOpVariable && def.wc >= 4 &&
            def.w[3] == SpvStorageClassPrivate) {
            if (mark)
                goto done;   /* two: not the harness's shape */
            mark = def.result;
        }
    }
    /* the mark is only ever set to zero (its initialiser) and read once
     * (OpLoad's pointer, word 3), and that value is only stored (OpStore's
     * object, word 2) through an access chain into a buffer: the
     * harness's `bf_out.bf_loop[bf_cell] = bf_loop_hit`, of a zero */
    size_t load_at = mark ? only_use(&m, mark, SpvOpLoad, 3) : 0;
    if (!load_at || !spirv_module_at(&m, load_at, &ins))
        goto done;
    store_at = only_use(&m, ins.result, SpvOpStore, 2);
    /* this runs before the module is validated: every word read is one
     * the instruction has */
    if (!store_at || !spirv_module_at(&m, store_at, &ins) || ins.wc < 3 ||
        !spirv_module_def(&m, ins.w[1], &chain) || chain.wc < 4 ||
        (chain.op != SpvOpAccessChain && chain.op != SpvOpInBoundsAccessChain) ||
        !spirv_module_def(&m, chain.w[3], &base) || base.op != SpvOpVariable || base.wc < 4 ||
        (base.w[3] != SpvStorageClassStorageBuffer && base.w[3] != SpvStorageClassUniform)) {
        store_at = 0;
        goto done;
    }
    store_wc = ins.wc;
done:
    spirv_module_clear(&m);
    if (!store_at)
        return nwords;
    /* the load and the access chain stay, unused: the driver drops them */
    memmove(words + store_at, words + store_at + store_wc,
            (nwords - store_at - store_wc) * sizeof *words);
    return nwords - store_wc;
}
