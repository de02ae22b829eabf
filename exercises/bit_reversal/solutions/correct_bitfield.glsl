// expect: accepted
// GLSL reverses all 32 bits at once; my `bits` low bits land on top, so
// shift them back down and keep the block's bits as they are.
uint i = uint(this.thread.x);
uint mask = (1u << uint(bits)) - 1u;
uint rev = bitfieldReverse(i & mask) >> uint(32 - bits);
return points[0][int((i & ~mask) | rev)];
