#extension GL_EXT_buffer_reference : require
return 0.0;
}
layout(buffer_reference) buffer P { float v; };
float unused(uint64_t a) {
return P(a).v;
