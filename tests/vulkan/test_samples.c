/*
 * Grades every body in the samples folder on a real Vulkan device and
 * checks the verdict its header names. Header lines, at the top:
 *   // expect: accepted | wrong_answer | compilation_error | rejected | ...
 *   // halves-passed: 1 2 4      (the halves that must pass, others fail)
 *   // visible: pass             (every visible cell passes)
 *   // hidden: fail              (no hidden spectrum passes)
 *   // error-line: N             (the first diagnostic is on line N)
 *   // diagnostics: N            (exactly N diagnostics: warnings kept beside errors)
 *   // diagnosis: ID | none      (the named mistake; none: no name, but a summary)
 *   // summary: TEXT             (the summary, word for word)
 *   // error-message: TEXT       (the first diagnostic's words start so)
 *   // worked: TEXT              (the worked cell: "half 2 visible i 1 plane 0
 *                                  matches a + w·b", "matches -" for none)
 *   // leads-with: SLUG          (the recipe step the diagnosis leads with)
 *   // title: TEXT               (the diagnosis's title, word for word)
 *   // says: TEXT                (the worked cell's sentence holds TEXT)
 *   // never: TEXT               (no text of the diagnosis or worked cell holds TEXT)
 *   // names: TEXT               (the title or the explanation's first sentence holds
 *                                  TEXT, case aside)
 *   // mistake: TEXT             (the true mistake, in words: what the students'
 *                                  corpus states; read by people, not checked)
 * An accepted body must carry neither a diagnosis nor a summary. Every
 * folder given is graded; those after the first are named by their last
 * component ("mistakes/both_plus.glsl").
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/task.h"
#include "common/io/read_input.h"
#include "engine/diagnosis/cues.h"
#include "engine/diagnosis/literal.h"
#include "engine/grade.h"
#include "tests/support/device_fixture.h"
#include "tests/support/words.h"

static struct grader *grader;

struct sample {
    char path[512];
    char name[128];
};

/* The value of "// key:" in body's header, or NULL. Static buffer. */
static const char *header(const char *body, const char *key)
{
    static char value[256];
    char pat[64];
    snprintf(pat, sizeof pat, "// %s:", key);
    const char *p = strstr(body, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t n = strcspn(p, "\n");
    snprintf(value, sizeof value, "%.*s", (int)n, p);
    return value;
}

static void check_sample(void **state)
{
    const struct sample *s = *state;
    char err[256];
    size_t len;
    char *body = read_input(s->path, TASK_MAX_SOURCE + 1, &len, err, sizeof err);
    assert_non_null(body);
    struct verdict *v = grader_grade(grader, body, len);
    assert_non_null(v);
    print_message("%s: %s: %s [%s]\n", s->name, verdict_status_to_str(v->status),
                  v->message ? v->message : "",
                  v->diagnosis ? v->diagnosis->id : v->summary ? v->summary : "");

    const char *expect = header(body, "expect");
    assert_non_null(expect);
    char want[64];
    sscanf(expect, " %63s", want);
    assert_string_equal(verdict_status_slug(v->status), want);
    if (v->status == VERDICT_ACCEPTED) {
        assert_null(v->diagnosis);
        assert_null(v->summary);
    }

    const char *halves = header(body, "halves-passed");
    if (halves) {
        assert_int_equal(v->halves_run, TASK_NHALVES);
        for (int h = 0; h < v->halves_run; h++) {
            char num[8];
            snprintf(num, sizeof num, "%d", v->halves[h].half);
            bool should = strstr(halves, num) != NULL;
            if (should != v->halves[h].passed)
                fail_msg("%s: half %d %s but should %s", s->name, v->halves[h].half,
                         v->halves[h].passed ? "passed" : "failed", should ? "pass" : "fail");
        }
    }
    const char *visible = header(body, "visible");
    if (visible && strstr(visible, "pass"))
        for (int h = 0; h < v->halves_run; h++)
            for (int y = 0; y < TASK_PLANES; y++)
                for (int x = 0; x < TASK_N; x++)
                    assert_true(v->halves[h].cells[y][x].passed);
    const char *hidden = header(body, "hidden");
    if (hidden && strstr(hidden, "fail"))
        for (int h = 0; h < v->halves_run; h++)
            assert_int_equal(v->halves[h].hidden_passed, 0);
    const char *line = header(body, "error-line");
    if (line) {
        assert_true(v->ndiags >= 1);
        assert_int_equal(v->diags[0].line, atoi(line));
    }
    const char *ndiags = header(body, "diagnostics");
    if (ndiags && v->ndiags != (size_t)atoi(ndiags))
        fail_msg("%s: %zu diagnostics, wanted %d", s->name, v->ndiags, atoi(ndiags));
    const char *diagnosis = header(body, "diagnosis");
    if (diagnosis) {
        char id[64];
        sscanf(diagnosis, " %63s", id);
        if (!strcmp(id, "none")) {
            if (v->diagnosis)
                fail_msg("%s: diagnosed as %s but should get none", s->name, v->diagnosis->id);
            assert_non_null(v->summary);
            assert_true(strlen(v->summary) > 0);
        } else {
            if (!v->diagnosis)
                fail_msg("%s: no diagnosis but should be %s (summary: %s)", s->name, id,
                         v->summary ? v->summary : "none");
            assert_string_equal(v->diagnosis->id, id);
            assert_null(v->summary);
        }
    }
    const char *words = header(body, "error-message");
    if (words) {
        words += strspn(words, " ");
        assert_true(v->ndiags >= 1);
        if (strncmp(v->diags[0].message, words, strlen(words)))
            fail_msg("%s: message \"%s\" does not start with \"%s\"", s->name,
                     v->diags[0].message, words);
        assert_non_null(v->diags[0].original);
    }
    const char *worked = header(body, "worked");
    if (worked) {
        worked += strspn(worked, " ");
        assert_non_null(v->worked_cell);
        const struct worked_cell *w = v->worked_cell;
        char seen[160];
        snprintf(seen, sizeof seen, "half %d %s i %d plane %d matches %s", w->half,
                 w->hidden ? "hidden" : "visible", w->i, w->plane,
                 w->got_matches[0] ? w->got_matches : "-");
        assert_string_equal(seen, worked);
    }
    if (v->status == VERDICT_WRONG_ANSWER) {
        /* every Wrong Answer carries its worked cells */
        assert_non_null(v->worked_cell);
        assert_non_null(v->worked_cells);
        assert_false(v->worked_cell->passed);
    }
    const char *step = header(body, "leads-with");
    if (step) {
        assert_non_null(v->diagnosis);
        if (strcmp(v->diagnosis->step, step + strspn(step, " ")))
            fail_msg("%s: leads with step \"%s\", wanted \"%s\" (%s)", s->name,
                     v->diagnosis->step, step + strspn(step, " "), v->diagnosis->title);
    }
    const char *title = header(body, "title");
    if (title) {
        assert_non_null(v->diagnosis);
        assert_string_equal(v->diagnosis->title, title + strspn(title, " "));
    }
    const char *says = header(body, "says");
    if (says) {
        assert_non_null(v->worked_cell);
        if (!strstr(v->worked_cell->says, says + strspn(says, " ")))
            fail_msg("%s: the worked cell says \"%s\"", s->name, v->worked_cell->says);
    }
    const char *never = header(body, "never");
    if (never && v->diagnosis) {
        never += strspn(never, " ");
        const char *texts[] = { v->diagnosis->title, v->diagnosis->explanation,
                                v->diagnosis->hint,
                                v->diagnosis->more ? v->diagnosis->more : "",
                                v->worked_cell ? v->worked_cell->says : "" };
        for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
            if (strstr(texts[k], never))
                fail_msg("%s: \"%s\" says \"%s\"", s->name, texts[k], never);
    }
    /* the worked cell never has no reading while a visible cell has one
     * (issue 32): an expression, or the kernel's own numbers */
    if (v->status == VERDICT_WRONG_ANSWER && v->worked_cell && !v->worked_cell->hidden &&
        !v->worked_cell->got_matches[0] && !v->worked_cell->kernel_known && v->worked_cells)
        for (size_t k = 0; k < WORKED_CELLS; k++) {
            const struct worked_cell *o = &v->worked_cells[k];
            if (!o->passed && o->got_matches[0] && strncmp(o->got_matches, "the other plane", 15))
                fail_msg("%s: the worked cell has no reading, but half %d, i %d, plane %d "
                         "reads as %s", s->name, o->half, o->i, o->plane, o->got_matches);
        }
    /* never a cell whose only reading is another plane's, unless the
     * diagnosis is about the planes (issue 32) */
    if (v->diagnosis && v->worked_cell && strcmp(v->diagnosis->step, "plane") &&
        !strstr(v->diagnosis->id, "planes") &&
        !strncmp(v->worked_cell->got_matches, "the other plane", 15) &&
        !strstr(v->worked_cell->says, "its own numbers"))
        fail_msg("%s: the worked cell tells a planes story: %s", s->name, v->worked_cell->says);
    /* one story, short (issue 32) */
    if (v->diagnosis && !test_diagnosis_short(v->diagnosis->title, v->diagnosis->explanation,
                                              v->diagnosis->more, 40, 80))
        fail_msg("%s: too long: \"%s\" \"%s\" (more: %s)", s->name, v->diagnosis->title,
                 v->diagnosis->explanation, v->diagnosis->more ? v->diagnosis->more : "");
    /* never contradict a literal line (issue 32): a step the body writes
     * as the recipe does is never the one the diagnosis leads with */
    if (v->diagnosis) {
        char *compact = cues_compact(body, len);
        unsigned literal = literal_steps(compact);
        if (literal_contradicts(literal, v->diagnosis->step))
            fail_msg("%s: leads with step \"%s\", whose line is the recipe's (%s)", s->name,
                     v->diagnosis->step, v->diagnosis->title);
        free(compact);
    }
    const char *names = header(body, "names");
    if (names) {
        names += strspn(names, " ");
        assert_non_null(v->diagnosis);
        char first[1024];
        snprintf(first, sizeof first, "%s %.*s", v->diagnosis->title,
                 (int)test_first_sentence(v->diagnosis->explanation), v->diagnosis->explanation);
        if (!strcasestr(first, names))
            fail_msg("%s: \"%s\" does not name \"%s\"", s->name, first, names);
    }
    const char *summary = header(body, "summary");
    if (summary) {
        assert_non_null(v->summary);
        assert_string_equal(v->summary, summary + strspn(summary, " "));
    }
    verdict_free(v);
    free(body);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct sample *)a)->name, ((const struct sample *)b)->name);
}

/* Adds the .glsl files of dir to samples; false when dir cannot be read. */
static bool add_dir(const char *dir, bool first, struct sample *samples, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return false;
    }
    const char *slash = strrchr(dir, '/');
    const char *prefix = slash ? slash + 1 : dir;
    struct dirent *e;
    while ((e = readdir(d)) && *n < 256) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".glsl"))
            continue;
        struct sample *s = &samples[(*n)++];
        snprintf(s->path, sizeof s->path, "%s/%s", dir, e->d_name);
        if (first)
            snprintf(s->name, sizeof s->name, "%s", e->d_name);
        else
            snprintf(s->name, sizeof s->name, "%s/%s", prefix, e->d_name);
    }
    closedir(d);
    return true;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_samples SAMPLES_DIR...\n");
        return 2;
    }
    struct sample *samples = calloc(256, sizeof *samples);
    struct CMUnitTest *tests = calloc(256, sizeof *tests);
    size_t n = 0;
    for (int a = 1; a < argc; a++) {
        if (!add_dir(argv[a], a == 1, samples, &n)) {
            free(samples);
            free(tests);
            return 2;
        }
    }
    qsort(samples, n, sizeof *samples, by_name);
    for (size_t i = 0; i < n; i++)
        tests[i] = (struct CMUnitTest){ samples[i].name, check_sample, NULL, NULL, &samples[i] };

    grader = device_fixture_grader();
    if (!grader)
        return 1;
    int failed = n ? _cmocka_run_group_tests("samples", tests, n, NULL, NULL) : 1;
    grader_free(grader);
    free(tests);
    free(samples);
    return failed;
}
