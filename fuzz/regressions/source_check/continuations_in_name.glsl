#inc\
\
lude "/etc/hostname"
return 0.0;
