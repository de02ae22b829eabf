float x = 1.0;
// À¯
return x;
