float x = 1.0;#extension GL_EXT_buffer_reference : enable
return x;
