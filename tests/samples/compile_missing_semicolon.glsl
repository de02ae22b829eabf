// expect: compilation_error
// error-line: 6
// error-message: missing ';' at the end of this line?
// A statement without its ';': glslang trips on the next line's first token.
int i = this.thread.x;
float a = spectrum[this.thread.y][i]

// the next statement
return a;
