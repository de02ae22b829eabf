// expect: wrong_answer
// halves-passed:
// diagnosis: wrong_twiddle
// leads-with: w
// The twiddle's angle off by a constant: no multiple of π/8, so no formula of
// the family; the kernel's own w, solved from the two planes, names it
// (issue 32; it had only the summary before).
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float angle = -PI * float(r) / float(half) + 0.3;
float wr = cos(angle);
float wi = sin(angle);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
