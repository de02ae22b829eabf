// expect: compilation_error
// error-line: 5
// error-message: half is read-only
// half is the pass's parameter: the kernel cannot change it.
half = half / 2;
return 0.0;
