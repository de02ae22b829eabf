// expect: wrong_answer
// diagnosis: b_planes_swapped
// leads-with: read
// title: b's real and imaginary parts are swapped
// never: twiddle
// br read from the imaginary plane, bi from the real one (issue 32: it was told
// "Some values use the wrong twiddle").
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[1][base + half], bi = spectrum[0][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
