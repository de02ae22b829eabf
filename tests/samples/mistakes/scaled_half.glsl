// expect: wrong_answer
// halves-passed:
// diagnosis: scaled_half
// worked: half 1 visible i 0 plane 0 matches (a + w·b) / 2
// Each output divided by 2, "to keep the values small".
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
float re = j == 0 ? ar + tr : ar - tr;
float im = j == 0 ? ai + ti : ai - ti;
return (this.thread.y == 0 ? re : im) / 2.0;
