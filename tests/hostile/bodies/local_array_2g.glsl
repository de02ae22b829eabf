float big[2147483647];
return big[this.thread.x];
