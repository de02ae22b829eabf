return 0.0;
#if 0
