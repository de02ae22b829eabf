// expect: wrong_answer
// halves-passed:
// diagnosis: none
// The input handed back unchanged.
return spectrum[this.thread.y][this.thread.x];
