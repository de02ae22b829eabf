// expect: accepted
// one case per pass
int i = this.thread.x;
int j;
switch (half) {
case 1: j = i & 1; break;
case 2: j = (i >> 1) & 1; break;
default: j = (i >> 2) & 1; break;
}
int p = j == 1 ? i - half : i;
int q = p + half;
float angle = -PI * float(p % half) / float(half);
float re = cos(angle) * spectrum[0][q] - sin(angle) * spectrum[1][q];
float im = sin(angle) * spectrum[0][q] + cos(angle) * spectrum[1][q];
float sgn = float(1 - 2 * j);
if (this.thread.y == 1)
    return spectrum[1][p] + sgn * im;
return spectrum[0][p] + sgn * re;
