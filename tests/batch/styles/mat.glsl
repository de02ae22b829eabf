// expect: accepted
// the twiddle as a rotation matrix
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
float t = -PI * float(i % half) / float(half);
mat2 rot = mat2(cos(t), sin(t), -sin(t), cos(t));
vec2 b = rot * vec2(spectrum[0][base + half], spectrum[1][base + half]);
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 o = j == 0 ? a + b : a - b;
return o[this.thread.y];
