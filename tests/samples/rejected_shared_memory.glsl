// expect: rejected
// The body closes its function and declares workgroup memory.
return 0.0;
}
shared float stolen[64];
float bf_unused() {
stolen[gl_LocalInvocationIndex] = 1.0;
return stolen[0];
