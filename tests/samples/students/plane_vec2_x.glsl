// mistake: vec2 style: returns result.x for both planes
// expect: wrong_answer
// leads-with: plane
int i = this.thread.x;
bool upper = (i & half) != 0;
int base = upper ? i - half : i;
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
float angle = -PI * float(i % half) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 result = upper ? a - wb : a + wb;
return result.x;
