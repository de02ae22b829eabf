// expect: accepted
// bit tricks: the partner differs in one bit
int i = this.thread.x;
int up = i & half;
int lo = i ^ up;
int hi = lo | half;
float ang = -PI * float(i & (half - 1)) / float(half);
float c = cos(ang), s = sin(ang);
float br = spectrum[0][hi], bi = spectrum[1][hi];
float tr = c * br - s * bi, ti = c * bi + s * br;
float sign = up != 0 ? -1.0 : 1.0;
return this.thread.y == 0 ? spectrum[0][lo] + sign * tr : spectrum[1][lo] + sign * ti;
