/*
 * The check on load and named mistakes on a real device.
 *
 * exercises/butterfly/solutions/ is checked as the server checks it by the
 * vulkan suite's check_exercise_butterfly (butterfly-grade
 * --check-exercise). Here the check itself is put to the samples whose
 * first line is an expect line, a second set in the samples' own format:
 * tests/samples/correct*.glsl and wrong_*.glsl ("// expect: accepted" or
 * "// expect: wrong_answer", with "// diagnosis: ID" naming the mistake due).
 * Named mistakes are the wrong samples, served as mistake files of an
 * exercise of the butterfly's shape that has no built-in search.
 *
 * usage: test_exercise_check_device SAMPLES_DIR
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/exercise/exercise_check.h"
#include "common/io/read_input.h"
#include "common/task.h"
#include "engine/grade.h"
#include "tests/support/device_fixture.h"

static struct grader *grader;
static const char *samples_dir;

/* The sample `name`'s text; the test fails when it cannot be read. */
static char *sample(const char *name, size_t *len)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", samples_dir, name);
    char *body = read_input(path, TASK_MAX_SOURCE + 1, len, err, sizeof err);
    if (!body)
        fail_msg("%s", err);
    return body;
}

/* The value of the "// KEY:" header line of body, or NULL. */
static const char *header(const char *body, const char *key, char *buf, size_t n)
{
    char want[64];
    snprintf(want, sizeof want, "// %s:", key);
    const char *at = strstr(body, want);
    if (!at)
        return NULL;
    at += strlen(want);
    at += strspn(at, " ");
    snprintf(buf, n, "%.*s", (int)strcspn(at, "\r\n"), at);
    return buf;
}

struct solutions {
    struct exercise_solution s[64];
    char file[64][96], mistake[64][64];
    char *body[64];
    size_t n;
};

static void solutions_read(struct solutions *out)
{
    DIR *d = opendir(samples_dir);
    assert_non_null(d);
    struct dirent *de;
    out->n = 0;
    while ((de = readdir(d)) && out->n < 64) {
        const char *nm = de->d_name;
        size_t l = strlen(nm);
        if (l < 6 || strcmp(nm + l - 5, ".glsl") ||
            (strncmp(nm, "correct", 7) && strncmp(nm, "wrong_", 6)))
            continue;
        size_t i = out->n++;
        struct exercise_solution *s = &out->s[i];
        snprintf(out->file[i], sizeof out->file[i], "solutions/%s", nm);
        out->body[i] = sample(nm, &s->len);
        s->file = out->file[i];
        s->body = out->body[i];
        char expect[64], diag[64];
        assert_non_null(header(s->body, "expect", expect, sizeof expect));
        s->expect = strcmp(expect, "accepted") == 0 ? EXPECT_ACCEPTED : EXPECT_WRONG;
        s->mistake = NULL;
        if (header(s->body, "diagnosis", diag, sizeof diag)) {
            snprintf(out->mistake[i], sizeof out->mistake[i], "%s", diag);
            s->mistake = out->mistake[i];
        }
    }
    closedir(d);
}

static void solutions_free(struct solutions *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->body[i]);
}

static void test_butterfly_solutions_as_expected(void **state)
{
    (void)state;
    static struct solutions sols;
    solutions_read(&sols);
    assert_true(sols.n >= 7);
    struct exercise e = *exercise_default();
    e.solutions = sols.s;
    e.nsolutions = sols.n;
    struct exercise_check c;
    assert_true(exercise_check_run(&e, NULL, device_fixture_grade, grader, &c));
    for (size_t i = 0; i < c.nproblems; i++)
        print_error("%s\n", c.problems[i]);
    assert_int_equal(c.nproblems, 0);
    assert_int_equal(c.solutions_ok, sols.n);
    exercise_check_clear(&c);

    /* a solution whose expect line lies is named with what it got */
    for (size_t i = 0; i < sols.n; i++)
        if (!strcmp(sols.s[i].file, "solutions/wrong_twiddle_sign.glsl"))
            sols.s[i].expect = EXPECT_ACCEPTED;
    assert_true(exercise_check_run(&e, NULL, device_fixture_grade, grader, &c));
    assert_int_equal(c.nproblems, 1);
    assert_string_equal(c.problems[0], "exercises/butterfly/solutions/wrong_twiddle_sign.glsl: "
                                       "expected accepted, got Wrong Answer (twiddle_sign)");
    exercise_check_clear(&c);
    solutions_free(&sols);
}

/* Mistake files of an exercise of the butterfly's shape with no search. */
struct mistake_exercise {
    struct exercise e;
    struct exercise_mistake m[3];
    char *body[3];
};

static void mistake_exercise_make(struct mistake_exercise *x, const char *const *names,
                                  size_t n)
{
    x->e = *exercise_default();
    x->e.id = "butterfly_by_files";
    x->e.diagnosis = NULL;
    /* the butterfly's own solutions name its built-in diagnosis: none here */
    x->e.solutions = NULL;
    x->e.nsolutions = 0;
    for (size_t i = 0; i < n; i++) {
        x->body[i] = sample(names[i], &x->m[i].len);
        x->m[i].body = x->body[i];
        x->m[i].title = names[i];
        x->m[i].explanation = "From the mistake file's header.";
        x->m[i].hint = i == 0 ? "Look at the twiddle's sign." : NULL;
    }
    x->m[0].id = "sign";
    x->m[1].id = "swap";
    x->m[2].id = "sign_again";
    x->e.mistakes = x->m;
    x->e.nmistakes = n;
}

static void mistake_exercise_free(struct mistake_exercise *x)
{
    for (size_t i = 0; i < x->e.nmistakes; i++)
        free(x->body[i]);
}

static void test_named_mistake_diagnosed_from_outputs(void **state)
{
    (void)state;
    static const char *const names[] = { "wrong_twiddle_sign.glsl",
                                         "wrong_swapped_planes.glsl" };
    struct mistake_exercise x;
    mistake_exercise_make(&x, names, 2);

    /* another text of the twiddle's sign: its outputs, not its text, match */
    static const char sign[] =
        "int i = this.thread.x;\n"
        "int r = i % half;\n"
        "int j = (i / half) % 2;\n"
        "int base = (i / (2 * half)) * 2 * half + r;\n"
        "float ang = PI * float(r) / float(half);\n"
        "float wr = cos(ang), wi = sin(ang);\n"
        "float br = spectrum[0][base + half], bi = spectrum[1][base + half];\n"
        "float wbr = wr * br - wi * bi, wbi = wr * bi + wi * br;\n"
        "float s = j == 0 ? 1.0 : -1.0;\n"
        "if (this.thread.y == 0) return spectrum[0][base] + s * wbr;\n"
        "return spectrum[1][base] + s * wbi;\n";
    struct verdict *v = grader_grade_exercise(grader, &x.e, sign, strlen(sign));
    assert_non_null(v);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_non_null(v->diagnosis);
    assert_string_equal(v->diagnosis->id, "sign");
    assert_string_equal(v->diagnosis->title, "wrong_twiddle_sign.glsl");
    assert_string_equal(v->diagnosis->explanation, "From the mistake file's header.");
    assert_string_equal(v->diagnosis->hint, "Look at the twiddle's sign.");
    verdict_free(v);

    /* each sample: its status, and the mistake it is diagnosed as (NULL: none) */
    static const struct {
        const char *file;
        enum verdict_status status;
        const char *id;
    } cases[] = {
        { "wrong_swapped_planes.glsl", VERDICT_WRONG_ANSWER, "swap" },
        /* wrong, but like no mistake file: no diagnosis rather than a guess */
        { "wrong_both_plus.glsl", VERDICT_WRONG_ANSWER, NULL },
        { "correct.glsl", VERDICT_ACCEPTED, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len;
        char *body = sample(cases[i].file, &len);
        v = grader_grade_exercise(grader, &x.e, body, len);
        free(body);
        assert_int_equal(v->status, cases[i].status);
        if (cases[i].id)
            assert_string_equal(v->diagnosis->id, cases[i].id);
        else
            assert_null(v->diagnosis);
        verdict_free(v);
    }
    mistake_exercise_free(&x);
}

static void test_check_names_mistakes_no_input_tells_apart(void **state)
{
    (void)state;
    static const char *const names[] = { "wrong_twiddle_sign.glsl", "wrong_swapped_planes.glsl",
                                         "wrong_twiddle_sign.glsl" };
    struct mistake_exercise x;
    mistake_exercise_make(&x, names, 3);
    struct exercise_check c;
    assert_true(exercise_check_run(&x.e, NULL, device_fixture_grade, grader, &c));
    assert_int_equal(c.mistakes_ok, 2);
    assert_int_equal(c.nproblems, 1);
    assert_string_equal(c.problems[0], "exercises/butterfly_by_files/mistakes/sign.glsl and "
                                       "exercises/butterfly_by_files/mistakes/sign_again.glsl "
                                       "give equal outputs on every run: no input tells them "
                                       "apart");
    exercise_check_clear(&c);
    mistake_exercise_free(&x);
}

/* Another shape is graded as its own exercise, never refused or graded
 * as the butterfly: a body that returns 0 is wrong in every cell of the
 * bit reversal's 16 x 1 grid, with no diagnosis but its named mistakes'. */
static void test_other_shape_graded_as_itself(void **state)
{
    (void)state;
    const struct exercise *e = exercise_find("bit_reversal");
    assert_non_null(e);
    struct verdict *v = grader_grade_exercise(grader, e, "return 0.0;", 11);
    assert_int_equal(v->status, VERDICT_WRONG_ANSWER);
    assert_string_equal(v->task, "bit_reversal");
    assert_int_equal(v->grid_n, 16);
    assert_int_equal(v->grid_planes, 1);
    assert_int_equal(v->halves_run, (int)e->nsweep);
    verdict_free(v);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_exercise_check_device SAMPLES_DIR\n");
        return 2;
    }
    samples_dir = argv[1];
    grader = device_fixture_grader();
    if (!grader)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_butterfly_solutions_as_expected),
        cmocka_unit_test(test_named_mistake_diagnosed_from_outputs),
        cmocka_unit_test(test_check_names_mistakes_no_input_tells_apart),
        cmocka_unit_test(test_other_shape_graded_as_itself),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    grader_free(grader);
    return failed;
}
