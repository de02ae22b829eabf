// expect: wrong_answer
// halves-passed: 4
// diagnosis: wrong_j
// leads-with: j
// title: j is not (i / half) % 2 in some cells
// never: wrong a, b
// j from a bound on i instead of the place in the block: right only where
// the block is the whole transform (half = 4).
int i = this.thread.x;
int j = i < half ? 0 : 1;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
