#\
inclu\
de "/etc/passwd"
return 0.0;
