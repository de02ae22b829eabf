// expect: accepted
// halves-passed: 1 2 4
// Written with if statements, a local constant pi and no ternaries.
const float pi = 3.14159265;
int i = this.thread.x;
int j;
if ((i / half) % 2 == 0) {
    j = 0;
} else {
    j = 1;
}
int base = i - j * half;
float theta = -pi * float(i - (i / half) * half) / float(half);
float c = cos(theta);
float s = sin(theta);
float re = c * spectrum[0][base + half] - s * spectrum[1][base + half];
float im = c * spectrum[1][base + half] + s * spectrum[0][base + half];
float sign = 1.0;
if (j == 1) {
    sign = -1.0;
}
if (this.thread.y == 0) {
    return spectrum[0][base] + sign * re;
}
return spectrum[1][base] + sign * im;
