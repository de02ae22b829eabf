return 0.0;
}
void main() {
}
float unused(float a) {
return a;
