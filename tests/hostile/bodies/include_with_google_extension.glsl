#extension GL_GOOGLE_include_directive : enable
#include "/etc/hostname"
return 0.0;
