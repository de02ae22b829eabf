// expect: wrong_answer
// halves-passed: 1
// diagnosis: wrong_sign
// worked: half 4 visible i 5 plane 1 matches a − conj(w)·b
// a - w*b expanded by hand, one sign lost in the imaginary part; right
// wherever w = 1. No formula of the family does this, but every value read
// back as a formula shows the lost sign.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
if (this.thread.y == 0) {
    if (j == 0) return ar + wr * br - wi * bi;
    return ar - wr * br + wi * bi;
}
if (j == 0) return ai + wr * bi + wi * br;
return ai - wr * bi + wi * br;
