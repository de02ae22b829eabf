// expect: compilation_error
// error-line: 7
// A second main() clashes with the harness's own.
return 0.0;
}
void main() {
