// mistake: j from a bound on i (i >= half), not from the place in the block
// expect: wrong_answer
// leads-with: j
int n = this.thread.x;
int j = n >= half ? 1 : 0;
int base = n - j * half;
int r = n % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) { return j == 0 ? ar + tr : ar - tr; }
return j == 0 ? ai + ti : ai - ti;
