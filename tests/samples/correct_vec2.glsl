// expect: accepted
// halves-passed: 1 2 4
// Complex numbers as vec2, the sign as a float, and the twiddle's
// angle from the position inside the half-block.
int i = this.thread.x;  // step: i
bool upper = (i & half) != 0;  // step: j
int base = upper ? i - half : i;  // step: base
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);  // step: read
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);  // step: read
float angle = -PI * float(i % half) / float(half);  // step: r w
vec2 w = vec2(cos(angle), sin(angle));  // step: w
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);  // step: wb
vec2 result = upper ? a - wb : a + wb;  // step: sign
return result[this.thread.y];  // step: plane
