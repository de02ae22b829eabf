// An unrolled loop by hand: 2,000 statements compile in milliseconds with
// glslang, but lavapipe's LLVM compile at the first dispatch runs past the
// deadline.
#define A x = x * 0.999 + sin(x + 1.0);
#define B A A A A A A A A A A
#define C B B B B B B B B B B
#define D C C C C C C C C C C
float x = spectrum[0][this.thread.x];
D D
return x;
