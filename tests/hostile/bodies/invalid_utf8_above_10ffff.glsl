// ô€€
return 0.0;
