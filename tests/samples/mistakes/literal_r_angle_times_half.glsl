// expect: wrong_answer
// halves-passed: 1
// leads-with: w
// never: r is not
// The angle multiplied by half where it should be divided: r's line is the
// recipe's (issue 32: it was told "r is not i % half").
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / 2.0 * float(half));
float wi = sin(-PI * float(r) / 2.0 * float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
