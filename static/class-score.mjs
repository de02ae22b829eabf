// class-score.mjs - what a tile says of a score the learning system has
// not taken (issue 22: the LTI outbox). Pure: no DOM, tested in node.

/*
 * The words for a tile's score_not_sent ({failed, state, attempts,
 * error} or null): null when there is nothing to say.
 */
export function scoreNote(u) {
  if (!u) return null;
  const tries = u.attempts ? `, ${u.attempts} ${u.attempts === 1 ? 'try' : 'tries'}` : '';
  const why = u.error ? `: ${u.error}` : '';
  return u.failed || u.state === 'failed'
    ? `Score not sent to the gradebook (gave up${tries})${why}`
    : `Score not sent to the gradebook yet (retrying${tries})${why}`;
}
