// a comment#pragma debug(on)
return 0.0;
