// An endless loop with nothing in it: lavapipe ends every loop after
// 65,535 iterations, so this returns (a wrong answer) instead of hanging.
float x = 0.0;
while (true) { x += 1.0; }
return x;
