/*
 * mutation: how often a Wrong Answer gets a name.
 *
 * Derives every single-token mutant of the given bodies (the sample
 * correct kernels; tests/support/mutants.h says which). Each
 * is graded in this process by the engine (grader_grade, on the device
 * BUTTERFLY_DEVICE or --device names), and the verdicts are counted: how
 * many are Wrong Answers, and how many of those get a diagnosis: by a
 * formula of the family, by the pairs decoded, or by the values read back
 * as formulas (docs/FEEDBACK.md).
 *
 * Each line of a body may say which steps of the recipe it computes, as
 * a comment `// step: j` (several: `// step: sign plane`). A mutant of a
 * token on such a line breaks that step, and a named mutant "leads with
 * the broken step" when its diagnosis's step is one of the line's. The
 * share of named mutants that do is reported beside the share named.
 *
 * Run by hand (docs/FEEDBACK.md records the figure):
 *   build/tests/mutation tests/samples/correct*.glsl
 * Options: --device SEL, --verbose (print every Wrong Answer, its code and
 * its name or summary), --texts (also its step, title, explanation, hint),
 * --limit N (grade the first N mutants only).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/io/read_input.h"
#include "common/task.h"
#include "engine/diagnosis/describe.h"
#include "engine/grade.h"
#include "tests/support/mutants.h"
#include "tests/support/words.h"

struct tally {
    char id[160];
    size_t count;
};

static void count_id(struct tally *ts, size_t *n, size_t max, const char *id)
{
    for (size_t k = 0; k < *n; k++)
        if (!strcmp(ts[k].id, id)) {
            ts[k].count++;
            return;
        }
    if (*n < max) {
        snprintf(ts[*n].id, sizeof ts[*n].id, "%s", id);
        ts[(*n)++].count = 1;
    }
}

static int by_count(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    return x->count != y->count ? (x->count < y->count) - (x->count > y->count)
                                : strcmp(x->id, y->id);
}

int main(int argc, char **argv)
{
    struct grader_options o;
    grader_options_init(&o);
    o.device = getenv("BUTTERFLY_DEVICE");
    bool verbose = false, texts = false;
    size_t limit = (size_t)-1;
    struct mutants m = { 0 };
    int files = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--device") && a + 1 < argc) {
            o.device = argv[++a];
        } else if (!strcmp(argv[a], "--verbose")) {
            verbose = true;
        } else if (!strcmp(argv[a], "--texts")) {
            verbose = texts = true;
        } else if (!strcmp(argv[a], "--limit") && a + 1 < argc) {
            limit = strtoul(argv[++a], NULL, 10);
        } else if (argv[a][0] == '-') {
            fprintf(stderr, "usage: mutation [--device SEL] [--verbose] [--texts] [--limit N] BODY...\n");
            return 64;
        } else {
            char err[256];
            size_t len;
            char *body = read_input(argv[a], TASK_MAX_SOURCE, &len, err, sizeof err);
            if (!body) {
                fprintf(stderr, "%s: %s\n", argv[a], err);
                return 1;
            }
            mutants_add(&m, body, len);
            free(body);
            files++;
        }
    }
    if (!files) {
        fprintf(stderr, "usage: mutation [--device SEL] [--verbose] [--texts] [--limit N] BODY...\n");
        return 64;
    }
    char err[256];
    struct grader *g = grader_new(&o, err, sizeof err);
    if (!g) {
        fprintf(stderr, "no grader: %s\n", err);
        return 1;
    }
    size_t graded = 0, by_status[128] = { 0 }, named = 0, by_formula = 0, by_values = 0;
    size_t marked = 0, leads = 0;   /* named mutants of marked lines; leading with the step */
    size_t contradicts = 0;         /* leading with a step only unmutated lines compute */
    size_t too_long = 0;            /* over the words of a diagnosis */
    static struct tally ids[1024];
    size_t nids = 0;
    double t0 = clock_now_ms();
    for (size_t k = 0; k < m.n && graded < limit; k++, graded++) {
        struct verdict *v = grader_grade(g, m.texts[k], strlen(m.texts[k]));
        if (!v) {
            fprintf(stderr, "out of memory\n");
            return 1;
        }
        by_status[v->status < 128 ? v->status : 127]++;
        if (v->status == VERDICT_WRONG_ANSWER) {
            if (v->diagnosis) {
                named++;
                bool values = !strncmp(v->diagnosis->title, describe_values_title,
                                       strlen(describe_values_title));
                by_values += values;
                by_formula += !values && !strstr(v->diagnosis->id, "wrong_");
                count_id(ids, &nids, sizeof ids / sizeof ids[0], v->diagnosis->id);
                if (m.steps[k][0]) {
                    marked++;
                    leads += mutants_step_in(v->diagnosis->step, m.steps[k]);
                }
                /* one story, short (issue 32) */
                if (!test_diagnosis_short(v->diagnosis->title, v->diagnosis->explanation,
                                          v->diagnosis->more, 40, 80)) {
                    too_long++;
                    printf("too long: %s\n    %s %s\n", m.keys[k], v->diagnosis->title,
                           v->diagnosis->explanation);
                }
                /* never contradict a literal line (issue 32): a mutant of a
                 * marked line does not lead with a step only unmutated
                 * (correct, to the letter) lines compute */
                if (v->diagnosis->step[0] && m.steps[k][0] &&
                    mutants_step_in(v->diagnosis->step, m.others[k]) &&
                    !mutants_step_in(v->diagnosis->step, m.steps[k])) {
                    contradicts++;
                    if (verbose || texts)
                        printf("contradicts a literal line (%s): %s\n    %s: %s\n",
                               v->diagnosis->step, m.keys[k], v->diagnosis->id,
                               v->diagnosis->title);
                }
            }
            if (verbose)
                printf("%s: %s\n    %s\n", v->diagnosis ? "named" : "unnamed", m.keys[k],
                       v->diagnosis ? v->diagnosis->id : v->summary ? v->summary : "");
            if (texts && v->diagnosis)
                printf("    broken: %s; leads with: %s\n    title: %s\n    explanation: %s\n"
                       "    hint: %s\n    more: %s\n    worked: %s\n",
                       m.steps[k], v->diagnosis->step, v->diagnosis->title,
                       v->diagnosis->explanation, v->diagnosis->hint,
                       v->diagnosis->more ? v->diagnosis->more : "",
                       v->worked_cell ? v->worked_cell->says : "");
        }
        verdict_free(v);
        if (!grader_usable(g)) {
            grader_free(g);
            if (!(g = grader_new(&o, err, sizeof err))) {
                fprintf(stderr, "no grader: %s\n", err);
                return 1;
            }
        }
    }
    double seconds = (clock_now_ms() - t0) / 1000;
    size_t wrong = by_status[VERDICT_WRONG_ANSWER];
    printf("%zu bodies, %zu distinct single-token mutants graded in %.0f s\n", (size_t)files,
           graded, seconds);
    printf("  accepted (equivalent mutants): %zu\n", by_status[VERDICT_ACCEPTED]);
    printf("  compilation errors: %zu, rejected: %zu, time limit: %zu\n",
           by_status[VERDICT_COMPILATION_ERROR], by_status[VERDICT_REJECTED],
           by_status[VERDICT_TIME_LIMIT]);
    printf("  wrong answers: %zu, named: %zu (%.1f%%): by a formula of the family %zu, by "
           "the pairs decoded %zu, by the values read back as formulas %zu\n", wrong, named,
           wrong ? 100.0 * (double)named / (double)wrong : 0.0, by_formula,
           named - by_formula - by_values, by_values);
    printf("  named mutants of marked lines: %zu, leading with the broken step: %zu (%.1f%%)\n",
           marked, leads, marked ? 100.0 * (double)leads / (double)marked : 0.0);
    printf("  named mutants leading with a step only unmutated lines compute: %zu\n",
           contradicts);
    printf("  diagnoses over 40 words (title and first sentence) or 80 (more): %zu\n",
           too_long);
    qsort(ids, nids, sizeof ids[0], by_count);
    printf("  names given, most common first:\n");
    for (size_t k = 0; k < nids; k++)
        printf("    %4zu  %s\n", ids[k].count, ids[k].id);
    grader_free(g);
    mutants_free(&m);
    return contradicts || too_long ? 2 : 0;
}
