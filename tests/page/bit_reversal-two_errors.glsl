int i = this.thread.x;
float a = nope;
return points[0][i] + alsonope;
