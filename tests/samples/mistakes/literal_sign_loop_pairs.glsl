// expect: wrong_answer
// halves-passed: 1
// leads-with: base
// never: sign before
// A loop over the blocks finds base wrong; the ending is the recipe's (issue 32:
// a loop over pairs was told "the sign before w·b is wrong").
int i = this.thread.x;
int j = 0;
int base = 0;
for (int b0 = 0; b0 < 8; b0 += 2 * half) {
    if (i >= b0 && i < b0 + 2 * half) {
        j = i - b0 < half ? 0 : 1;
        base = b0 + (i - b0) / 2;
    }
}
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
