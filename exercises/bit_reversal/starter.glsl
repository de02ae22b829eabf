// One thread computes one output point: index this.thread.x, 0..15.
int i = this.thread.x;

// The 16 points are blocks of 2^bits points each. Where does my block
// start, where am I inside it, and what is my place with its low `bits`
// bits written in reverse order?
int size = 1 << bits;
int block = 0;  // TODO
int k = i;      // TODO
int rev = k;    // TODO

// Gather: read the point my reversed place names, in my own block.
return points[0][block + rev];
