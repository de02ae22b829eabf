// mistake: half never read: the last pass's 4 written in
// expect: wrong_answer
// leads-with: j
// names: never reads half
int k = this.thread.x;
int up = k / 4;
int lo = k - up * 4;
float ar = spectrum[0][lo], ai = spectrum[1][lo];
float br = spectrum[0][lo + 4], bi = spectrum[1][lo + 4];
float c = cos(-PI * float(lo) / 4.0);
float s = sin(-PI * float(lo) / 4.0);
float tr = c * br - s * bi;
float ti = c * bi + s * br;
float sg = up == 0 ? 1.0 : -1.0;
return this.thread.y == 0 ? ar + sg * tr : ai + sg * ti;
