// expect: compilation_error
// error-line: 5
// error-message: a declaration needs its type
// JavaScript from the course page, pasted as it is.
const j = Math.floor(this.thread.x / half) % 2;
return 0.0;
