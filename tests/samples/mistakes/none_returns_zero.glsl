// expect: wrong_answer
// halves-passed:
// diagnosis: none
// summary: both planes wrong at both members for every half
// Nothing computed yet.
return 0.0;
