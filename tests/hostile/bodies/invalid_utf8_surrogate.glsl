float x = 1.0;

// í €
return x;
