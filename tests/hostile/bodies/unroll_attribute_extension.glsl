#extension GL_EXT_control_flow_attributes : require
float x = spectrum[0][this.thread.x];
[[unroll]] for (int k = 0; k < 10000; k++) {
    x = x * 0.999 + sin(x + float(k));
}
return x;
