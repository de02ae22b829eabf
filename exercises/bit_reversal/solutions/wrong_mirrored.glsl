// expect: wrong mirrored
int i = this.thread.x;
int size = 1 << bits;
int k = i % size;
return points[0][i - k + (size - 1 - k)];
