// expect: rejected
// error-line: 3
/* a comment first */ # /* and here */ extension GL_EXT_buffer_reference : enable
return 0.0;
