// expect: wrong_answer
// diagnosis: a_b_swapped
// leads-with: read
// title: a and b are swapped
// says: a is element 1 where element 0 is due, b is element 0 where element 1 is due
// never: imaginary part
// a read at base + half and b at base.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base + half], ai = spectrum[1][base + half];
float br = spectrum[0][base],        bi = spectrum[1][base];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
