// expect: wrong_answer
// halves-passed:
// diagnosis: j_zero
// The starter's j left at 0: every thread thinks it is the lower member.
int i = this.thread.x;
int j = 0;     // TODO
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
