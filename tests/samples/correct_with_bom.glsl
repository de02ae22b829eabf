// expect: accepted
// halves-passed: 1 2 4
// Saved with a UTF-8 byte-order mark first, as some editors do.
int i = this.thread.x;  // step: i
int j = (i / half) % 2;  // step: j
int base = i - j * half;  // step: base
int r = i % half;  // step: r
float ar = spectrum[0][base],        ai = spectrum[1][base];  // step: read
float br = spectrum[0][base + half], bi = spectrum[1][base + half];  // step: read
float wr = cos(-PI * float(r) / float(half));  // step: w
float wi = sin(-PI * float(r) / float(half));  // step: w
float tr = wr * br - wi * bi;  // step: wb
float ti = wr * bi + wi * br;  // step: wb
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;  // step: sign plane
return j == 0 ? ai + ti : ai - ti;  // step: sign plane
