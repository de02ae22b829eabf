// expect: rejected
// The body closes its function and declares a buffer of its own.
return 0.0;
}
layout(std430, set = 0, binding = 2) buffer Extra { float extra[]; };
float bf_unused() {
extra[0] = 1.0;
return 0.0;
