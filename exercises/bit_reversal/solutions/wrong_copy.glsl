// expect: wrong
// The starter as it comes: every point copied to its own place.
int i = this.thread.x;
return points[0][i];
