// expect: accepted
// halves-passed: 1 2 4
// Written with if statements, a local constant pi and no ternaries.
const float pi = 3.14159265;  // step: w
int i = this.thread.x;  // step: i
int j;
if ((i / half) % 2 == 0) {  // step: j
    j = 0;  // step: j
} else {
    j = 1;  // step: j
}
int base = i - j * half;  // step: base
float theta = -pi * float(i - (i / half) * half) / float(half);  // step: r w
float c = cos(theta);  // step: w
float s = sin(theta);  // step: w
float re = c * spectrum[0][base + half] - s * spectrum[1][base + half];  // step: read wb
float im = c * spectrum[1][base + half] + s * spectrum[0][base + half];  // step: read wb
float sign = 1.0;  // step: sign
if (j == 1) {  // step: sign
    sign = -1.0;  // step: sign
}
if (this.thread.y == 0) {  // step: plane
    return spectrum[0][base] + sign * re;  // step: read sign plane
}
return spectrum[1][base] + sign * im;  // step: read sign plane
