// A local array of 64 M floats (256 MiB) per thread.
float big[64 * 1024 * 1024];
big[this.thread.x] = spectrum[0][this.thread.x];
for (int k = 0; k < 8; k++)
    big[k * 8388608 + this.thread.x] = float(k);
return big[this.thread.x + 8388608 * (half % 8)];
