// expect: wrong_answer
// halves-passed:
// The starter body: it compiles and copies its input.
int i = this.thread.x;
return spectrum[this.thread.y][i];
