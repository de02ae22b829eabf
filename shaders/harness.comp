#version 450
//@ The harness template (grader/engine/harness.c fills it for an exercise):
//@ @NAME@ is a value of the exercise's definition, @BODY@ the student's
//@ body, and lines like these, which begin "//@", are the template's own
//@ and left out. For the butterfly it gives the harness the butterfly has
//@ always had, to the byte (tests/unit/test_harness.c), so its verdicts
//@ stay the same; the names stay bf_* for every exercise, since the
//@ SPIR-V passes find them by name.
// Harness for "@TITLE@".
//
// The grader splices the student's body in at the marker line below
// (grader/engine/harness.c). Everything the body may use is declared above
// it under the course's names (GLSL reserves `this` and `half`, hence the
// macros): `this` and `@PARAM@` are read-only parameters of @FUNCTION@, and
// `@INPUT@` reads this run's input in place. The output and main() come
// after the body, so the body cannot name them, and a thread can only
// return the one value for its own cell.
//
// Every run (a @PARAM@ and one @INPUT@, visible or hidden) is a dispatch of
// its own, one workgroup of @OUT_N@ x @OUT_PLANES@ threads. The input binding is dynamic:
// for each run the grader binds exactly that run's @IN_BYTES@ bytes, so whatever
// the body names or indexes it reads its own run and nothing else, and
// nothing in the shader tells one run from another but the values.

// The local size is declared before the body: glslang folds
// gl_WorkGroupSize where it is read, so a body that reads it must see the
// real size, not the (1, 1, 1) of a shader that has not declared one yet.
layout(local_size_x = @OUT_N@, local_size_y = @OUT_PLANES@, local_size_z = 1) in;

struct bf_this_t { ivec2 thread; };
// @INPUT@[p][k] reads this buffer in place rather than a private copy:
// indexing a private array with a run-time index makes lavapipe's LLVM
// compile twice as slow. It is read-only and holds only this run's input;
// an index past its end is clamped into it (the robust-access pass).
layout(std430, set = 0, binding = 0) readonly buffer bf_in_block {
    int half_size;
    float spec[@IN_PLANES@][@IN_N@];
} bf_in;
const float PI = 3.14159265358979323846;
#define this bf_this
#define @PARAM@ bf_half
#define @INPUT@ (bf_in.spec)

// Named as the page shows it, since compiler messages name it too.
float @FUNCTION@(const in bf_this_t bf_this, const in int bf_half)
{
#line 1
@BODY@
}
// From here on diagnostics carry source string 1, which is how the grader
// tells a fault the body caused in the harness from one on the body's lines.
#line 1 1
// A body can #define any name; undo that for every name used below, so the
// code after the body always means what it says.
#undef @FUNCTION@
#undef bf_this_t
#undef bf_in
#undef bf_in_block
#undef bf_out
#undef bf_out_block
#undef bf_value
#undef bf_loop
#undef bf_loop_hit
#undef bf_cell
#undef half_size
#undef layout
#undef local_size_x
#undef local_size_y
#undef local_size_z
#undef std430
#undef set
#undef binding
#undef writeonly
#undef buffer
#undef in
#undef void
#undef main
#undef float
#undef uint
#undef ivec2
#undef gl_LocalInvocationID
#undef x
#undef y
#undef xy

// The loop budget: the grader's SPIR-V pass (grader/engine/checks/spirv_loops.c)
// counts every loop iteration of this thread, and when the count passes
// the task's budget it stores here the number (from 1) of the loop that
// ran over, and every loop the thread reaches ends at once. The pass finds this
// variable by its name, which no body can declare as well: it is declared
// after the body, so a second declaration would not compile.
uint bf_loop_hit = 0u;

// This run's @CELLS@ output cells, plane-major (@OUT_ORDER@), and
// for each the loop that ran over (0: none).
layout(std430, set = 0, binding = 1) writeonly buffer bf_out_block {
    float bf_value[@CELLS@];
    uint bf_loop[@CELLS@];
} bf_out;

void main()
{
    uint bf_cell = gl_LocalInvocationID.y * @OUT_N@u + gl_LocalInvocationID.x;
    bf_out.bf_value[bf_cell] = @FUNCTION@(bf_this_t(ivec2(gl_LocalInvocationID.xy)),
@CALL_INDENT@bf_in.half_size);
    bf_out.bf_loop[bf_cell] = bf_loop_hit;
}
