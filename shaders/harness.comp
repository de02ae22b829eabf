#version 450
// Harness for "The Butterfly: One Thread, One Output".
//
// The grader splices the student's body in at the marker line below.
// Everything the body may use is declared above it under the course's names
// (GLSL reserves `this` and `half`, hence the macros): `this` and `half` are
// read-only parameters of butterfly, and `spectrum` reads the read-only input
// buffer in place. The output buffer and main() come after the body, so the
// body cannot name them, and a thread can only return the one value for its
// own cell.

struct bf_this_t { ivec2 thread; };
// One run per z-slice of the dispatch: its half and its input spectrum.
// spectrum[p][k] reads this buffer in place rather than a private copy:
// indexing a private array with a run-time index makes lavapipe's LLVM
// compile twice as slow. The buffer is read-only and holds only inputs.
struct bf_run_t { int half_size; float spec[2][8]; };
layout(std430, set = 0, binding = 0) readonly buffer bf_in_block { bf_run_t bf_runs[]; };
const float PI = 3.14159265358979323846;
#define this bf_this
#define half bf_half
#define spectrum (bf_runs[gl_WorkGroupID.z].spec)

// Named as the page shows it, since compiler messages name it too.
float butterfly(const in bf_this_t bf_this, const in int bf_half)
{
#line 1
@BODY@
}
// From here on diagnostics carry source string 1, which is how the grader
// tells a fault the body caused in the harness from one on the body's lines.
#line 1 1
// A body can #define any name; undo that for every name used below, so the
// code after the body always means what it says.
#undef butterfly
#undef bf_this_t
#undef bf_run_t
#undef bf_in_block
#undef bf_out_block
#undef bf_runs
#undef bf_out
#undef bf_run
#undef bf_cell
#undef bf_s
#undef bf_k
#undef half_size
#undef spec
#undef layout
#undef local_size_x
#undef local_size_y
#undef local_size_z
#undef std430
#undef set
#undef binding
#undef readonly
#undef writeonly
#undef buffer
#undef in
#undef struct
#undef void
#undef main
#undef float
#undef int
#undef uint
#undef ivec2
#undef for
#undef return
#undef gl_WorkGroupID
#undef gl_LocalInvocationID
#undef x
#undef y
#undef z
#undef xy

layout(local_size_x = 8, local_size_y = 2, local_size_z = 1) in;

// One run per z-slice of the dispatch: its half and its input spectrum,
// plane-major (re[0..7], then im[0..7]).
layout(std430, set = 0, binding = 1) writeonly buffer bf_out_block { float bf_out[]; };

void main()
{
    uint bf_run = gl_WorkGroupID.z;
    uint bf_cell = bf_run * 16u + gl_LocalInvocationID.y * 8u + gl_LocalInvocationID.x;
    bf_out[bf_cell] = butterfly(bf_this_t(ivec2(gl_LocalInvocationID.xy)),
                                bf_runs[bf_run].half_size);
}
