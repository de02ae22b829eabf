// mistake: a loop over the four pairs that stops one pair short, so the last pair keeps base 0
// expect: wrong_answer
// leads-with: base
int i = this.thread.x;
int j = (i / half) % 2;
int base = 0;
for (int p = 0; p < 3; p++) {
    int lo = (p / half) * 2 * half + p % half;
    if (lo == i || lo + half == i) base = lo;
}
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
