// expect: compilation_error
// error-line: 6
// error-message: an index must be an int
// A float index: spectrum takes ints.
float k = float(this.thread.x);
return spectrum[this.thread.y][k];
