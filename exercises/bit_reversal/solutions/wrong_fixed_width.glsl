// expect: wrong fixed_width
// Four bits swapped by hand: right for one block of 16, whatever bits is.
int i = this.thread.x;
int rev = ((i & 1) << 3) | ((i & 2) << 1) | ((i & 4) >> 1) | ((i & 8) >> 3);
return points[0][rev];
