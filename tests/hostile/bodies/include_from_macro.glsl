#define INC #include "/etc/passwd"
INC
return 0.0;
