// An endless loop with nothing in it. lavapipe would end it after 65,535
// iterations (a wrong answer) and a GPU run it to the deadline; the
// grader's loop budget stops it first, the same on every device.
float x = 0.0;
while (true) { x += 1.0; }
return x;
