float x = 1.0;#extension GL_EXT_buffer_reference : require#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
return 0.0;
}
layout(buffer_reference) buffer P { float v; };
float unused(uint64_t a) {
return P(a).v;
