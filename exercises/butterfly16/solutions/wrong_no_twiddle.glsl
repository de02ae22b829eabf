// expect: wrong no_twiddle
// Sum and difference of the pair, as if every pass were the first.
int i = this.thread.x;
int p = this.thread.y;
int j = (i / half) % 2;
int base = i - j * half;
float a = spectrum[p][base], b = spectrum[p][base + half];
return j == 0 ? a + b : a - b;
