// A loop that runs forever with heavy work in every iteration: 400
// sin() per iteration, and nothing but the loop budget ends it.
#define A x = sin(x) * 1.0001 + 0.5;
#define B A A A A A A A A A A
#define C B B B B B B B B B B
float x = spectrum[0][this.thread.x];
while (true) { C C C C }
return x;
