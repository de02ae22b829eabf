// expect: accepted
// half is a power of two: its bit in i picks the member, the bits below
// it are the place in the half-block. Complex numbers as vec2 (re, im).
int i = this.thread.x;
int lower = i & ~half;
int r = i & (half - 1);
vec2 a = vec2(spectrum[0][lower], spectrum[1][lower]);
vec2 b = vec2(spectrum[0][lower + half], spectrum[1][lower + half]);
float angle = -PI * float(r) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 t = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 y = (i & half) != 0 ? a - t : a + t;
return this.thread.y == 0 ? y.x : y.y;
