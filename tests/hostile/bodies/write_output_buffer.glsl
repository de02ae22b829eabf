bf_out[0] = 1.0;
return 0.0;
