// expect: wrong_answer
// halves-passed:
// visible: pass
// hidden: fail
// worked: half 1 hidden i 0 plane 0 matches -
// The answers for the visible spectrum, copied from the page: every
// visible cell is right and every hidden spectrum is wrong.
const float table[6][8] = float[6][8](
    float[8](0.5000000, 1.5000000, 3.0000000, 1.5000000, 1.5000000, -4.5000000, -1.7500000, 2.5000000),
    float[8](1.7500000, -0.7500000, 1.1250000, -2.8750000, -0.8750000, -1.1250000, 1.3750000, 1.8750000),
    float[8](3.2500000, 1.5000000, -1.2500000, -2.5000000, -1.1250000, 2.7500000, -1.8750000, 3.2500000),
    float[8](-0.3750000, 0.5000000, 1.3750000, 2.0000000, 0.6250000, 2.2500000, -2.6250000, -2.0000000),
    float[8](-0.5000000, 1.7097087, 3.8750000, 2.0758252, 2.5000000, -2.7097087, 0.6250000, -0.5758252),
    float[8](-0.5000000, -0.7829320, -1.2500000, 3.6793786, 1.5000000, 3.2829320, -0.5000000, 0.3206214)
);
int h = half == 1 ? 0 : (half == 2 ? 1 : 2);
return table[h * 2 + this.thread.y][this.thread.x];
