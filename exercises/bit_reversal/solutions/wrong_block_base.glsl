// expect: wrong block_base
// The whole index reversed and shifted down: the block's own bits fall
// off the bottom, so every block reads from the first one.
uint rev = bitfieldReverse(uint(this.thread.x)) >> uint(32 - bits);
return points[0][int(rev)];
