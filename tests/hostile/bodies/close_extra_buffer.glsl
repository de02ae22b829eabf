return 0.0;
}
layout(std430, set = 0, binding = 5) buffer evil_t { float evil[]; };
float unused(float a) {
evil[0] = a;
return a;
