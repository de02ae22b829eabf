// mistake: three mistakes: a and b's planes swapped, sin/cos swapped, both members add
// expect: wrong_answer
// leads-with: read
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[1][base], ai = spectrum[0][base];
float br = spectrum[1][base + half], bi = spectrum[0][base + half];
float wr = sin(-PI * float(r) / float(half));
float wi = cos(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return ar + tr;
return ai + ti;
