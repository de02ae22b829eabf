#\
extension GL_EXT_buffer_reference : enable
return 0.0;
