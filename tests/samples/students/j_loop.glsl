// mistake: a loop that finds the block but sets j from i's parity
// expect: wrong_answer
// leads-with: j
int i = this.thread.x;
int j = 0;
int base = 0;
for (int s = 0; s < 8; s += 2 * half) {
    if (i >= s && i < s + 2 * half) {
        base = i < s + half ? i : i - half;
        j = i & 1;
    }
}
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
float tr = wr * br - wi * bi;
float ti = wr * bi + wi * br;
if (this.thread.y == 0) return j == 0 ? ar + tr : ar - tr;
return j == 0 ? ai + ti : ai - ti;
