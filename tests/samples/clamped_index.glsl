// expect: wrong_answer
// An index far out of range is clamped into the array, never outside it.
return spectrum[this.thread.y][this.thread.x + 1000000];
