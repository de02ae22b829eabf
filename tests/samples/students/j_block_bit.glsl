// mistake: upper tested with the block's bit i & (2 * half)
// expect: wrong_answer
// leads-with: j
int i = this.thread.x;
bool upper = (i & (2 * half)) != 0;
int base = upper ? i - half : i;
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
float t = -PI * float(i % half) / float(half);
vec2 w = vec2(cos(t), sin(t));
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 o = upper ? a - wb : a + wb;
return o[this.thread.y];
