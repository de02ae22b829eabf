// expect: wrong_answer
// halves-passed: 2
// diagnosis: half_never_read
// title: Your kernel never reads half
// never: for example
// A number of its own where half belongs: every half gives the same outputs
// (issue 32: it was told a fit, "for example, a is element 0 where ...").
int i = this.thread.x;
int h = 2;
int j = (i / h) % 2;
int base = i - j * h;
int r = i % h;
float ar = spectrum[0][base],     ai = spectrum[1][base];
float br = spectrum[0][base + h], bi = spectrum[1][base + h];
float wr = cos(-PI * float(r) / float(h));
float wi = sin(-PI * float(r) / float(h));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
