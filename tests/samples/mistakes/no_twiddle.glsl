// expect: wrong_answer
// halves-passed: 1
// diagnosis: no_twiddle
// Plain sum and difference: the twiddle never multiplies b.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
float a = spectrum[this.thread.y][base];
float b = spectrum[this.thread.y][base + half];
if (j == 0) {
    return a + b;
}
return a - b;
