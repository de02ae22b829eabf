// expect: wrong_answer
// halves-passed:
// diagnosis: returns_zero
// worked: half 1 visible i 0 plane 0 matches 0
// Nothing computed yet.
return 0.0;
