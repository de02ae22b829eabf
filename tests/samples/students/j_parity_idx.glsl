// mistake: j is idx % 2, the parity, not (idx / half) % 2
// expect: wrong_answer
// leads-with: j
int idx = this.thread.x;
int j = idx % 2;
int base = idx - j * half;
int r = idx % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float ang = -PI * float(r) / float(half);
float wr = cos(ang), wi = sin(ang);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
