// expect: time_limit_exceeded
// diagnostics: 2
// error-line: 4
switch (half) { case 1: }
while (true) { }
return 0.0;
