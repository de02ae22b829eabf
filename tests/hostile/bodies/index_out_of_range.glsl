int k = this.thread.x * 100000000 - 7;
return spectrum[0][k] + spectrum[k][0];
