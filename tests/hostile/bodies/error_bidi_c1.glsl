float a = 1.0;
‮ a ;
return a;
