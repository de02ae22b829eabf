return 0.0;
}
shared float stolen[8192];
float unused(float a) {
stolen[0] = a;
return a;
