// mistake: the twiddle's sign flipped only when half == 4
// expect: wrong_answer
// leads-with: w
// never: r is
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float sgn = half == 4 ? 1.0 : -1.0;
float wr = cos(sgn * PI * float(r) / float(half));
float wi = sin(sgn * PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
