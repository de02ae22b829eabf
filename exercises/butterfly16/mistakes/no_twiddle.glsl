// title: The twiddle is left out
// explanation: The kernel adds and subtracts the pair without turning b by
// explanation: its twiddle, which is right only in the first pass, where
// explanation: every twiddle is 1. From half = 2 on, a cell whose place r in
// explanation: the half-block is not 0 gets a + b or a - b instead of a + w*b
// explanation: or a - w*b.
// hint: Multiply b by w = exp(-i * PI * r / half) before adding it to a.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
if (this.thread.y == 0)
    return j == 0 ? ar + br : ar - br;
return j == 0 ? ai + bi : ai - bi;
