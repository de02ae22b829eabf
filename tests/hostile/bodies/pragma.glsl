#pragma optimize(off)
return 0.0;
