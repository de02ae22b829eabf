// mistake: two mistakes: base = i - half everywhere, and both members add (no
// reading of the family gives these numbers: the summary only, and nothing false)
// expect: wrong_answer
// diagnosis: none
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return ar + tr;
return ai + ti;
