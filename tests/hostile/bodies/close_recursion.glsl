return 0.0;
}
float r(float a) { return r(a) + 1.0; }
float unused(float a) {
return r(a);
