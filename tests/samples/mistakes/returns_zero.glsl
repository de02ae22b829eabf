// expect: wrong_answer
// halves-passed:
// diagnosis: returns_zero
// Nothing computed yet.
return 0.0;
