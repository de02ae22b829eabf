/* a comment first */ #include "/etc/passwd"
return 0.0;
