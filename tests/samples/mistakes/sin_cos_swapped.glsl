// expect: wrong_answer
// halves-passed:
// diagnosis: sin_cos_swapped
// cos and sin each where the other belongs.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float angle = -PI * float(r) / float(half);
float wr = sin(angle);
float wi = cos(angle);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
