float x = 1.0;#line 500
return x;
