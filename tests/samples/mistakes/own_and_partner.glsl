// expect: wrong_answer
// halves-passed:
// diagnosis: wrong_read
// The recursion's view: a is my own element, b my partner's (i ^ half).
int i = this.thread.x;
int r = i % half;
vec2 a = vec2(spectrum[0][i], spectrum[1][i]);
vec2 b = vec2(spectrum[0][i ^ half], spectrum[1][i ^ half]);
float angle = -PI * float(r) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 wb = vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
vec2 res = (i & half) == 0 ? a + wb : a - wb;
return res[this.thread.y];
