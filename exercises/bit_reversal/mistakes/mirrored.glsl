// title: The order of the points reversed, not the bits of their index
// explanation: The kernel reads each block back to front (place k takes
// explanation: place 2^bits - 1 - k), which is what "reverse" means for a
// explanation: list but not for an index: bit reversal writes the index's
// explanation: binary digits in the opposite order, so for blocks of four
// explanation: places 0 1 2 3 read 0 2 1 3, not 3 2 1 0.
// hint: Write k in binary with `bits` digits and read the digits backwards.
int i = this.thread.x;
int size = 1 << bits;
int block = (i / size) * size;
return points[0][block + size - 1 - (i - block)];
