float x = 1.0; // café
return x;
