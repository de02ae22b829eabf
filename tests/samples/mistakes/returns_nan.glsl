// expect: wrong_answer
// halves-passed:
// diagnosis: returns_nan
// worked: half 1 visible i 0 plane 0 matches -
// A division by a zero that is not constant: every cell NaN.
float zero = float(half - half);
return zero / zero;
