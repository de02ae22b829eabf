// expect: wrong_answer
// halves-passed:
// diagnosis: angle_from_i
// leads-with: w
// title: The twiddle's angle from i instead of r
// The twiddle's angle from the thread's index i instead of r = i % half.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(i) / float(half));
float wi = sin(-PI * float(i) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
