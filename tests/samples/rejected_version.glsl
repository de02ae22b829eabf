// expect: rejected
// error-line: 3
#version 460
return 0.0;
