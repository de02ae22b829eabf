// helpers.mjs - fixtures for the page's unit tests, stored beside this
// file: verdicts the real grader produced, with every field of the
// contract, for tests/samples' correct, wrong_twiddle_sign (twice, under
// two names), hardcoded_visible and compile_error_line3, and for a loop of
// 20,000 iterations (endless_loop). Remade with
//   build/grader/butterfly-grade --json --seed 20261129 tests/samples/NAME.glsl
// Two are another exercise's (bit_reversal): bit_reversal-wrong_mirrored,
// diagnosed as the named mistake `mirrored`, and bit_reversal-two_errors,
// a Compilation Error on two lines of bit_reversal-two_errors.glsl; remade with
//   build/grader/butterfly-grade --exercise bit_reversal --json --seed 20261129 \
//     exercises/bit_reversal/solutions/wrong_mirrored.glsl (or tests/page/bit_reversal-two_errors.glsl)
// fixture('NAME') reads verdict-NAME.json. mistake-verdicts.json holds the
// grader's verdict on every kernel of tests/samples/mistakes/, cut down to
// what the worked cell's picture reads; remade with
//   /usr/bin/python3 tests/page/make_mistake_verdicts.py [BUILD_DIR]
import { readFileSync } from 'node:fs';

export function fixture(name) {
  return JSON.parse(readFileSync(new URL(`./verdict-${name}.json`, import.meta.url), 'utf8'));
}

/* A Storage look-alike; with `failing` every call throws, as Safari's
 * private mode and a full quota do. */
export function fakeStorage({ failing = false } = {}) {
  const map = new Map();
  const guard = () => {
    if (failing) throw new Error('QuotaExceededError');
  };
  return {
    map,
    getItem(k) { guard(); return map.has(k) ? map.get(k) : null; },
    setItem(k, v) { guard(); map.set(k, String(v)); },
    removeItem(k) { guard(); map.delete(k); },
  };
}
