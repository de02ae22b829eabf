// expect: wrong_answer
// halves-passed:
// leads-with: j
// never: w is
// The upper member told by the wrong bit of i: i & (2 * half) is the
// block's, not the half-block's.
int i = this.thread.x;
bool upper = (i & (2 * half)) != 0;
int base = upper ? i - half : i;
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
float angle = -PI * float(i % half) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 result = upper ? a - wb : a + wb;
return result[this.thread.y];
