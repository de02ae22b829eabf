// expect: wrong_answer
// halves-passed:
// diagnosis: componentwise_multiply
// w * b on two vec2s: GLSL multiplies them component by component.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
float angle = -PI * float(r) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 wb = w * b;
vec2 res = j == 0 ? a + wb : a - wb;
return res[this.thread.y];
