// title: Both members of the pair get a + w*b
// explanation: The upper member of each pair must take a - w*b, but the
// explanation: kernel gives it a + w*b like the lower one, so every pass,
// explanation: the first included, is wrong in the upper half of every block.
// hint: j says which member you are: the lower one adds w*b, the upper one subtracts it.
int i = this.thread.x;
int j = (i / half) % 2;
int base = i - j * half;
int r = i % half;
float ar = spectrum[0][base], ai = spectrum[1][base];
float br = spectrum[0][base + half], bi = spectrum[1][base + half];
float wr = cos(-PI * float(r) / float(half));
float wi = sin(-PI * float(r) / float(half));
if (this.thread.y == 0)
    return ar + wr * br - wi * bi;
return ai + wr * bi + wi * br;
