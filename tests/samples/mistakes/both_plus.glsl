// expect: wrong_answer
// halves-passed:
// diagnosis: both_plus
// worked: half 4 visible i 5 plane 0 matches a + w·b
// says: the value due at output 1, the other member of the pair
// j worked out and then never used for the sign.
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
return this.thread.y == 0 ? ar + tr : ai + ti;
