// title: Every block reads from the first one
// explanation: The place inside the block is reversed correctly, but the
// explanation: block's first index is not added back, so every block gathers
// explanation: from points 0 .. 2^bits - 1. Only the first block is right,
// explanation: and all of them are when one block holds all 16 points.
// hint: Add the index of your block's first point to the reversed place.
int i = this.thread.x;
int size = 1 << bits;
int k = i % size;
int rev = 0;
for (int b = 0; b < bits; b++)
    rev |= ((k >> b) & 1) << (bits - 1 - b);
return points[0][rev];
