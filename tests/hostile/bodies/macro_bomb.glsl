// A macro bomb: ten levels of ten-fold #define expand these few hundred
// bytes into 10^6 statements (about 30 MB of tokens) for the compiler.
#define A x = x * 1.0001 + 0.5;
#define B A A A A A A A A A A
#define C B B B B B B B B B B
#define D C C C C C C C C C C
#define E D D D D D D D D D D
#define F E E E E E E E E E E
#define G F F F F F F F F F F
float x = spectrum[0][this.thread.x];
G
return x;
