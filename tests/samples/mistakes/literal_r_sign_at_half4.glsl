// expect: wrong_answer
// halves-passed: 1 2
// leads-with: w
// never: r is
// The twiddle's sign flipped at half = 4 only: r's line is the recipe's (issue
// 32: it was told "r is −1 where 1 is due").
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float s = half == 4 ? 1.0 : -1.0;
float wr = cos(s * PI * float(r) / float(half));
float wi = sin(s * PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
