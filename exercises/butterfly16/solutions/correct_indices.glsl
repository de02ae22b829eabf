// expect: accepted
// The pair and the twiddle by division, the product written out.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float angle = -PI * float(r) / float(half);
float wr = cos(angle), wi = sin(angle);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
float sign = j == 0 ? 1.0 : -1.0;
if (this.thread.y == 0)
    return ar + sign * tr;
return ai + sign * ti;
