// expect: wrong_answer
// halves-passed:
// diagnosis: real_part_in_both_planes
// One product for both planes: the real part of w*b added to ar and to ai.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base],        ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float t = wr * br - wi * bi;
float a = this.thread.y == 0 ? ar : ai;
return j == 0 ? a + t : a - t;
