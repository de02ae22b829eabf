#define S "/*"
#extension GL_EXT_spirv_intrinsics : enable
return 0.0;
