// expect: wrong
// The starter as it comes: every cell copied through.
return spectrum[this.thread.y][this.thread.x];
