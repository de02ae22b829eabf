/*
 * The check on load's messages: solutions whose expect lines the verdicts
 * contradict, two named mistakes no input tells apart, and references that
 * are nondeterministic, not finite, crash or never return. The grading is
 * a stand-in that answers from the body's text, so each case says exactly
 * what the grader "got".
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/defaults.h"
#include "common/exercise/exercise_check.h"

/*
 * A body is what its stand-in verdict is: "accepted", "wrong", "wrong ID"
 * (a Wrong Answer diagnosed ID), "compile" (a Compilation Error), or "out
 * X" for a named mistake's outputs X, diagnosed, as the grader does, by the
 * first mistake whose body has the same outputs.
 */
static int graded;

static struct verdict *stand_in(void *arg, const struct exercise *e, const char *body, size_t len)
{
    (void)arg;
    graded++;
    char text[128];
    snprintf(text, sizeof text, "%.*s", (int)len, body);
    if (!strcmp(text, "accepted"))
        return verdict_new(VERDICT_ACCEPTED, NULL);
    if (!strcmp(text, "compile"))
        return verdict_new(VERDICT_COMPILATION_ERROR, "line 3: 'x' : undeclared identifier");
    struct verdict *v = verdict_new(VERDICT_WRONG_ANSWER, NULL);
    if (!strncmp(text, "wrong ", 6))
        v->diagnosis = diagnosis_new(text + 6, "t", "x", NULL);
    if (!strncmp(text, "out ", 4))
        for (size_t m = 0; m < e->nmistakes; m++)
            if (!strcmp(e->mistakes[m].body, text)) {
                v->diagnosis = diagnosis_new(e->mistakes[m].id, "t", "x", NULL);
                break;
            }
    return v;
}

static struct exercise_solution solution(const char *file, const char *body,
                                         enum exercise_expect expect, const char *mistake)
{
    return (struct exercise_solution){ .file = file, .body = body, .len = strlen(body),
                                       .expect = expect, .mistake = mistake };
}

/* The butterfly's shape with other files: the stand-in grades them. */
static struct exercise butterfly_with(const struct exercise_solution *s, size_t ns)
{
    struct exercise e = *exercise_default();
    e.solutions = s;
    e.nsolutions = ns;
    return e;
}

static void test_expected_solutions_pass_with_summary(void **state)
{
    (void)state;
    struct exercise_solution s[] = {
        solution("solutions/correct.glsl", "accepted", EXPECT_ACCEPTED, NULL),
        solution("solutions/plus.glsl", "wrong", EXPECT_WRONG, NULL),
        solution("solutions/sign.glsl", "wrong twiddle_sign", EXPECT_WRONG, "twiddle_sign"),
        solution("solutions/typo.glsl", "compile", EXPECT_WRONG, NULL),
    };
    struct exercise e = butterfly_with(s, 4);
    struct exercise_check c;
    graded = 0;
    assert_true(exercise_check_run(&e, NULL, stand_in, NULL, &c));
    assert_int_equal(c.nproblems, 0);
    assert_int_equal(graded, 4);
    char line[256];
    exercise_check_summary(&e, NULL, &c, line, sizeof line);
    assert_string_equal(line, "exercises/butterfly: 4 solutions as expected, 0 mistakes, "
                              "reference deterministic");
    exercise_check_clear(&c);
}

static void test_each_contradiction_named_all_kept(void **state)
{
    (void)state;
    struct exercise_solution s[] = {
        solution("solutions/correct.glsl", "wrong twiddle_sign", EXPECT_ACCEPTED, NULL),
        solution("solutions/plus.glsl", "accepted", EXPECT_WRONG, NULL),
        solution("solutions/sign.glsl", "wrong wrong_twiddle", EXPECT_WRONG, "twiddle_sign"),
        solution("solutions/fine.glsl", "accepted", EXPECT_ACCEPTED, NULL),
        solution("solutions/none.glsl", "wrong", EXPECT_WRONG, "twiddle_sign"),
        solution("solutions/typo.glsl", "compile", EXPECT_ACCEPTED, NULL),
    };
    struct exercise e = butterfly_with(s, 6);
    struct exercise_check c;
    assert_true(exercise_check_run(&e, "my/dir", stand_in, NULL, &c));
    assert_int_equal(c.nproblems, 5);
    assert_int_equal(c.solutions_ok, 1);
    assert_string_equal(c.problems[0], "my/dir/solutions/correct.glsl: expected accepted, got "
                                       "Wrong Answer (twiddle_sign)");
    assert_string_equal(c.problems[1], "my/dir/solutions/plus.glsl: expected wrong, got "
                                       "Accepted");
    assert_string_equal(c.problems[2], "my/dir/solutions/sign.glsl: expected wrong "
                                       "twiddle_sign, got Wrong Answer (wrong_twiddle)");
    assert_string_equal(c.problems[3], "my/dir/solutions/none.glsl: expected wrong "
                                       "twiddle_sign, got Wrong Answer (no diagnosis)");
    assert_string_equal(c.problems[4], "my/dir/solutions/typo.glsl: expected accepted, got "
                                       "Compilation Error: line 3: 'x' : undeclared "
                                       "identifier");
    exercise_check_clear(&c);
}

static struct exercise_mistake mistake(const char *id, const char *body)
{
    return (struct exercise_mistake){ .id = id, .title = "t", .explanation = "x",
                                      .body = body, .len = strlen(body) };
}

static void test_mistakes_no_input_tells_apart(void **state)
{
    (void)state;
    struct exercise_mistake m[] = {
        mistake("sign", "out 1"),
        mistake("swap", "out 2"),
        mistake("sign_again", "out 1"),   /* the same outputs as sign */
        mistake("right", "accepted"),
    };
    struct exercise e = butterfly_with(NULL, 0);
    e.diagnosis = NULL;
    e.mistakes = m;
    e.nmistakes = 4;
    struct exercise_check c;
    assert_true(exercise_check_run(&e, NULL, stand_in, NULL, &c));
    assert_int_equal(c.mistakes_ok, 2);
    assert_int_equal(c.nproblems, 2);
    assert_string_equal(c.problems[0], "exercises/butterfly/mistakes/sign.glsl and "
                                       "exercises/butterfly/mistakes/sign_again.glsl give "
                                       "equal outputs on every run: no input tells them apart");
    assert_string_equal(c.problems[1], "exercises/butterfly/mistakes/right.glsl: expected "
                                       "Wrong Answer (right), got Accepted: a mistake must "
                                       "give wrong outputs");
    exercise_check_clear(&c);
}

static void test_builtin_search_leaves_mistake_files_alone(void **state)
{
    (void)state;
    struct exercise_mistake m[] = { mistake("a", "out 1"), mistake("b", "out 1") };
    struct exercise e = butterfly_with(NULL, 0);   /* diagnosis "butterfly" */
    e.mistakes = m;
    e.nmistakes = 2;
    struct exercise_check c;
    graded = 0;
    assert_true(exercise_check_run(&e, NULL, stand_in, NULL, &c));
    assert_int_equal(c.nproblems, 0);
    assert_int_equal(graded, 0);
    exercise_check_clear(&c);
}

/* References each wrong in its own way, with the butterfly's contract. */
static void counting_reference(int param, const float *in, double *out)
{
    static int calls;
    calls++;
    for (int c = 0; c < 16; c++)
        out[c] = in[c] * param + (c == 5 ? calls : 0);
}

static void crashing_reference(int param, const float *in, double *out)
{
    (void)in;
    (void)out;
    if (param == 2)
        raise(SIGSEGV);
    for (int c = 0; c < 16; c++)
        out[c] = 0;
}

static void looping_reference(int param, const float *in, double *out)
{
    (void)param;
    (void)in;
    volatile unsigned long spin = 0;
    for (;;)
        spin++;
    out[0] = (double)spin;
}

static void nan_reference(int param, const float *in, double *out)
{
    for (int c = 0; c < 16; c++)
        out[c] = in[c] * param;
    out[3] = 0.0 / 0.0;
}

static void sparse_reference(int param, const float *in, double *out)
{
    for (int c = 0; c < 15; c++)   /* forgets the last cell */
        out[c] = in[c] * param;
}

static void test_nondeterministic_reference_stops_before_grading(void **state)
{
    (void)state;
    struct exercise_solution s[] = {
        solution("solutions/correct.glsl", "accepted", EXPECT_ACCEPTED, NULL),
    };
    struct exercise e = butterfly_with(s, 1);
    e.reference = counting_reference;
    struct exercise_check c;
    graded = 0;
    assert_true(exercise_check_run(&e, NULL, stand_in, NULL, &c));
    assert_int_equal(graded, 0);
    assert_false(c.reference_ok);
    assert_int_equal(c.nproblems, 1);
    assert_non_null(strstr(c.problems[0], "exercises/butterfly/reference.c: the reference gives "
                                          "different outputs for the same input twice (half = "
                                          "1, the visible input, plane 0, index 5: "));
    assert_non_null(strstr(c.problems[0], "(its solutions were not graded)"));
    exercise_check_clear(&c);
}

static void test_crashing_reference_names_signal(void **state)
{
    (void)state;
    struct exercise e = *exercise_default();
    e.reference = crashing_reference;
    char msg[EXERCISE_CHECK_MESSAGE_MAX];
    assert_int_equal(exercise_reference_probe(&e, NULL, 7, 2000, msg, sizeof msg),
                     PROBE_CRASHED);
    assert_string_equal(msg, "exercises/butterfly/reference.c: the reference crashed "
                             "(signal 11, Segmentation fault)");
}

static void test_looping_reference_stopped_at_bound(void **state)
{
    (void)state;
    struct exercise e = *exercise_default();
    e.reference = looping_reference;
    char msg[EXERCISE_CHECK_MESSAGE_MAX];
    assert_int_equal(exercise_reference_probe(&e, "x", 7, 300, msg, sizeof msg), PROBE_TIMEOUT);
    assert_string_equal(msg, "x/reference.c: the reference did not return within 300 ms "
                             "(it was stopped)");
}

static void test_non_finite_or_unwritten_output(void **state)
{
    (void)state;
    struct exercise e = *exercise_default();
    char msg[EXERCISE_CHECK_MESSAGE_MAX];
    e.reference = nan_reference;
    assert_int_equal(exercise_reference_probe(&e, NULL, 7, 2000, msg, sizeof msg),
                     PROBE_NOT_FINITE);
    assert_non_null(strstr(msg, "(half = 1, the visible input, plane 0, index 3)"));
    e.reference = sparse_reference;
    assert_int_equal(exercise_reference_probe(&e, NULL, 7, 2000, msg, sizeof msg),
                     PROBE_NOT_FINITE);
    assert_non_null(strstr(msg, "plane 1, index 7"));
}

static void test_reference_not_built_in(void **state)
{
    (void)state;
    struct exercise e = *exercise_default();
    e.id = "twiddles";
    e.reference = NULL;
    struct exercise_check c;
    assert_true(exercise_check_run(&e, NULL, stand_in, NULL, &c));
    assert_int_equal(c.nproblems, 1);
    assert_string_equal(c.problems[0], "exercises/twiddles/reference.c: not built in: add "
                                       "twiddles to exercises/LIST and run ninja (its "
                                       "solutions were not graded)");
    exercise_check_clear(&c);
}

static void test_butterfly_reference_deterministic(void **state)
{
    (void)state;
    char msg[EXERCISE_CHECK_MESSAGE_MAX] = "";
    assert_int_equal(exercise_reference_probe(exercise_default(), NULL, 7, 2000, msg,
                                              sizeof msg), PROBE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expected_solutions_pass_with_summary),
        cmocka_unit_test(test_each_contradiction_named_all_kept),
        cmocka_unit_test(test_mistakes_no_input_tells_apart),
        cmocka_unit_test(test_builtin_search_leaves_mistake_files_alone),
        cmocka_unit_test(test_nondeterministic_reference_stops_before_grading),
        cmocka_unit_test(test_crashing_reference_names_signal),
        cmocka_unit_test(test_looping_reference_stopped_at_bound),
        cmocka_unit_test(test_non_finite_or_unwritten_output),
        cmocka_unit_test(test_reference_not_built_in),
        cmocka_unit_test(test_butterfly_reference_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
