// mistake: each output divided by 2
// expect: wrong_answer
// leads-with: sign
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
float re = j == 0 ? ar + tr : ar - tr;
float im = j == 0 ? ai + ti : ai - ti;
return 0.5 * (this.thread.y == 0 ? re : im);
