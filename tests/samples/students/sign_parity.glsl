// mistake: the sign from i % 2 instead of j
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
float s = (i % 2 == 0) ? 1.0 : -1.0;
return this.thread.y == 0 ? ar + s * tr : ai + s * ti;
