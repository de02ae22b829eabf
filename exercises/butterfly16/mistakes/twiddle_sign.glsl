// title: The twiddle turns the wrong way
// explanation: The twiddle is e^(+i pi r / half) where the forward transform
// explanation: needs e^(-i pi r / half): every product w*b is mirrored in the
// explanation: real axis. The first pass (half = 1) has no twiddles but 1 and
// explanation: is right; every later pass is wrong wherever r is not 0.
// hint: The forward FFT's twiddles carry a minus sign: w = exp(-i * PI * r / half).
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(PI * float(r) / float(half));
float wi = sin(PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0)
    return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
