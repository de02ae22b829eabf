// expect: accepted
// Peel the low bits of k off one at a time and push them onto rev.
int i = this.thread.x;
int size = 1 << bits;
int block = i - i % size;
int k = i % size;
int rev = 0;
for (int b = 0; b < bits; b++) {
    rev = (rev << 1) | (k & 1);
    k >>= 1;
}
return points[0][block + rev];
