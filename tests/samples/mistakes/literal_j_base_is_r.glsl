// expect: wrong_answer
// halves-passed: 4
// diagnosis: wrong_base
// leads-with: base
// never: j is not
// never: j = i / half
// base = r: the j line is the recipe's, so the diagnosis leads with base
// (issue 32: it was told "j is not (i / half) % 2 in some cells").
int i = this.thread.x;
int j = (i / half) % 2;
int r = i % half;
int base = r;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
