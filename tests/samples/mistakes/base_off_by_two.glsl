// expect: wrong_answer
// diagnosis: wrong_base
// leads-with: base
// The lower member's place counted two too far. No formula of the family
// gives base + 2, but every cell is still a ± w·b: named by what differs.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half + 2;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
