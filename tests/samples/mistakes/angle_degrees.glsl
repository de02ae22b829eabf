// expect: wrong_answer
// halves-passed: 1
// diagnosis: angle_in_degrees
// leads-with: w
// title: The angle is in degrees
// says: your w is −0.448−0.894i where −i is due
// The angle written in degrees, which cos and sin read as radians.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float deg = -180.0 * float(r) / float(half);
float wr = cos(deg);
float wi = sin(deg);
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
