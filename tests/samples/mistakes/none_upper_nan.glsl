// expect: wrong_answer
// halves-passed:
// diagnosis: none
// summary: real plane right everywhere; imaginary plane wrong at the upper members for every half; it returned NaN at half 1 (imaginary i = 1, 3, 5, 7), half 2 (imaginary i = 2, 3, 6, 7), half 4 (imaginary i = 4, 5, 6, 7)
// The imaginary plane of the upper members left as NaN, "to do later".
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
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : uintBitsToFloat(0x7fc00000u);
