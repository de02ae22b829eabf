// expect: wrong_answer
// halves-passed:
// The real result returned for the imaginary plane and the other way round.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 1) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
