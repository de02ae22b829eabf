// One thread computes one output cell: index this.thread.x (0..15),
// plane this.thread.y (0 real, 1 imaginary).
int i = this.thread.x;

// Which member of the pair am I, where is its lower member, and where
// am I inside the half-block?
int j = 0;     // TODO
int base = 0;  // TODO
int r = 0;     // TODO

// a = spectrum[.][base], b = spectrum[.][base + half],
// w = exp(-i * PI * r / half). Return a + w*b at the lower member and
// a - w*b at the upper one.
return spectrum[this.thread.y][i];
