// expect: wrong_answer
// halves-passed: 1
// diagnosis: twiddle_sign
// worked: half 4 visible i 1 plane 0 matches a + conj(w)·b
// never: other member
// leads-with: w
// The twiddle's angle without its minus sign, complex numbers as vec2.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float angle = PI * float(r) / float(half);
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
vec2 w = vec2(cos(angle), sin(angle));
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 res = j == 0 ? a + wb : a - wb;
return res[this.thread.y];
