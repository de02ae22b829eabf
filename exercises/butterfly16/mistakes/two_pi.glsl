// title: The twiddle's angle is twice too large
// explanation: The angle is -2 pi r / half, the DFT's -2 pi k / N with N taken
// explanation: as half; but the pass combines transforms of 2 * half points,
// explanation: so N is 2 * half and the angle -pi r / half. The first pass is
// explanation: right (r is always 0); later ones turn b twice as far.
// hint: A pass with half-block size half merges two transforms of half points into one of 2 * half.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-2.0 * PI * float(r) / float(half));
float wi = sin(-2.0 * PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0)
    return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
