// expect: wrong_answer
// halves-passed: 1
// diagnosis: int_division
// leads-with: w
// r / half divided as ints, which is always 0, and only then made a float.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float theta = -PI * float(r / half);
float wr = cos(theta);
float wi = sin(theta);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
