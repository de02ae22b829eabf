/*
 * spirv_loops.h - the loop budget: the grader, not the driver, bounds loops.
 *
 * lavapipe ends any loop silently after 65,535 iterations, while a GPU runs
 * it until the deadline; a verdict that depends on that is worth nothing.
 * So every loop of the compiled kernel counts its iterations in one
 * per-thread counter, and when the count passes the task's budget (far
 * below the driver's cap) the thread records which loop ran over and
 * every loop it reaches ends at once. The verdict is then Time Limit
 * Exceeded, naming the loop's line, the same on every device.
 */
#ifndef BUTTERFLY_SPIRV_LOOPS_H
#define BUTTERFLY_SPIRV_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The harness's per-thread variable that receives the loop's number. */
#define SPIRV_LOOPS_MARK_NAME "bf_loop_hit"

/*
 * Instruments every loop of a valid module (SPIR-V 1.0 to 1.6, structured
 * control flow, as glslang writes it): each iteration (a back edge taken
 * to a loop header) adds one to a per-thread counter, all loops and all
 * calls together; entering a loop adds nothing. The back edge that takes
 * iteration budget + 1 stores the loop's number (1 for the module's first
 * OpLoopMerge, and so on) in the harness's SPIRV_LOOPS_MARK_NAME variable,
 * and from then on every loop the thread reaches ends at once: a `for` or
 * `while` by its own exit test, which the count joins, any other loop by a
 * return from its function. So exactly `budget` iterations run to the end,
 * and the thread then finishes. On success *out is a new
 * module (malloc'd, the caller frees it), *out_nwords its length and
 * *nloops the number of loops. False with a reason in msg when the module
 * is not of the expected shape (a failure of the grader's, not the body's).
 */
bool spirv_loops_instrument(const uint32_t *words, size_t nwords, uint32_t budget,
                            uint32_t **out, size_t *out_nwords, size_t *nloops,
                            char *msg, size_t msgsz);

/*
 * The source line of loop number `loop` (from 1, as above) according to
 * the OpLine debug instructions before its OpLoopMerge; 0 when unknown.
 * Works on any module whose loops are in the same order as the one that
 * was instrumented (debug information may differ).
 */
int spirv_loops_line(const uint32_t *words, size_t nwords, uint32_t loop);

/*
 * The lines of every loop of a module at once, as spirv_loops_line gives
 * them: *lines (malloc'd, the caller frees it; NULL when there is no loop)
 * and *nloops. False when out of memory or the module is malformed.
 */
bool spirv_loops_lines(const uint32_t *words, size_t nwords, int **lines, size_t *nloops);

/*
 * Drops, in place, the harness's store of the loop mark into the output
 * from a valid module without loops: nothing there can set the mark, the
 * grader zeroes the marks before each run (gpu.c), and each store to a
 * buffer is a good part of lavapipe's compile. Returns the new length; the
 * module is left as it is (`nwords` returned) when it has a loop, when the
 * mark is read anywhere but in one OpLoad whose value goes only to one
 * OpStore, or when it is malformed: such a module is only slower. Needs
 * the names (OpName), so it runs before the debug information is stripped.
 */
size_t spirv_loops_drop_mark_store(uint32_t *words, size_t nwords);

#endif
