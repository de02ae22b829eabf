// title: The twiddle's angle is twice too large
// explanation: The angle is -2 pi r / half, the DFT's -2 pi k / N with N taken
// explanation: as half; but the pass combines transforms of 2 * half points,
// explanation: so N is 2 * half and the angle -pi r / half. The first pass is
// explanation: right (r is always 0); later ones turn b twice as far.
// hint: A pass with half-block size half merges two transforms of half points into one of 2 * half.
int i = this.thread.x;
int lower = i & ~half;
int r = i & (half - 1);
float angle = -2.0 * PI * float(r) / float(half);
float wr = cos(angle), wi = sin(angle);
float br = spectrum[0][lower + half], bi = spectrum[1][lower + half];
float t = this.thread.y == 0 ? wr * br - wi * bi : wr * bi + wi * br;
float a = spectrum[this.thread.y][lower];
return (i & half) == 0 ? a + t : a - t;
