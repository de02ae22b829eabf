#include "/etc/hostname"
return 0.0;
