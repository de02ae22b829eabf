// expect: wrong_answer
// halves-passed:
// diagnosis: returns_input
// The input handed back unchanged.
return spectrum[this.thread.y][this.thread.x];
