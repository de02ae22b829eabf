// expect: compilation_error
// error-line: 4
int i = this.thread.x;
float x = undefined_name * 2.0;
return x;
