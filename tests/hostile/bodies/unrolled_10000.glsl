// 10,000 statements: the SPIR-V module is over the checker's 512 KiB.
#define A x = x * 0.999 + sin(x + 1.0);
#define B A A A A A A A A A A
#define C B B B B B B B B B B
#define D C C C C C C C C C C
float x = spectrum[0][this.thread.x];
D D D D D D D D D D
return x;
