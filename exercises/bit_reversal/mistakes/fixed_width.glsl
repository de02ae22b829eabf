// title: Always four bits reversed
// explanation: The kernel reverses all four bits of the index whatever
// explanation: `bits` is, so it is right only when one block holds all 16
// explanation: points (bits = 4). With smaller blocks the high bits, which
// explanation: say which block a point is in, get reversed into the low
// explanation: ones, and points travel between blocks.
// hint: Reverse only the low `bits` bits of the index and keep the others as they are.
int i = this.thread.x;
int rev = 0;
for (int b = 0; b < 4; b++)
    rev |= ((i >> b) & 1) << (3 - b);
return points[0][rev];
