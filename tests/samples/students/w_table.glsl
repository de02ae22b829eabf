// mistake: a table of twiddles for half = 4 with the sin of 3π/4 given the wrong sign
// expect: wrong_answer
// leads-with: w
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float cs[4] = float[4](1.0, 0.70710678, 0.0, -0.70710678);
float sn[4] = float[4](0.0, -0.70710678, -1.0, 0.70710678);
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
if (half == 4) { wr = cs[r]; wi = sn[r]; }
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
