// title: Both members of the pair get a + w*b
// explanation: The upper member of each pair must take a - w*b, but the
// explanation: kernel gives it a + w*b like the lower one, so every pass,
// explanation: the first included, is wrong in the upper half of every block.
// hint: The member of the pair that sits half cells above its partner subtracts w*b.
int i = this.thread.x;
int base = i - ((i / half) % 2) * half;
float angle = -PI * float(i % half) / float(half);
vec2 w = vec2(cos(angle), sin(angle));
vec2 a = vec2(spectrum[0][base], spectrum[1][base]);
vec2 b = vec2(spectrum[0][base + half], spectrum[1][base + half]);
vec2 y = a + vec2(w.x * b.x - w.y * b.y, w.x * b.y + w.y * b.x);
return this.thread.y == 0 ? y.x : y.y;
