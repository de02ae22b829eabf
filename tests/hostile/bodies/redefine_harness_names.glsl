#define main evil
#define bf_out bf_runs
#define butterfly x
#define float int
#undef PI
return 0;
