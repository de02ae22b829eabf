/* batch_student_report.c - one student's report page. */
#include "batch/reports/batch_student_report.h"

#include <stdlib.h>

#include "batch/reports/batch_feedback.h"
#include "batch/reports/batch_html.h"
#include "common/exercise/exercise.h"
#include "common/report.h"
#include "common/task.h"

static void pre(FILE *f, const char *text)
{
    fputs("<pre>", f);
    batch_html_text(f, text ? text : "");
    fputs("</pre>\n", f);
}

static void tests(FILE *f, const struct score *sc)
{
    fputs("<section id=\"tests\"><h2>Tests</h2>\n<div class=\"scroll\"><table><thead><tr>"
          "<th>Test</th><th class=\"n\">Points</th><th>Shown to the student</th><th>Output</th>"
          "</tr></thead><tbody>\n", f);
    for (int i = 0; i < sc->ntests; i++) {
        const struct score_test *t = &sc->tests[i];
        fputs("<tr class=\"keep\"><td>", f);
        batch_html_text(f, t->name);
        fprintf(f, "</td><td class=\"n %s\">%d of %d</td><td>%s</td><td>", t->passed ? "ok" : "bad",
                t->score, t->max_score,
                t->hidden ? "once grades are published" : "always");
        pre(f, t->output);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table></div></section>\n", f);
}

char *batch_student_report_html(const struct batch_input *e, const char *task_title,
                                const struct verdict *v, const struct score *sc, uint64_t seed,
                                const char *sha)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    if (!f)
        return NULL;
    char *visible = batch_feedback_visible(e, v, sc, sha == NULL);
    char *full = sha ? report_to_string(v) : NULL;
    char title[256];
    snprintf(title, sizeof title, "%s: %s", e->id, task_title);
    batch_html_begin(f, title);
    fputs("<p class=\"no-print\"><a href=\"../summary.html#students\">&larr; the class</a></p>\n"
          "<header><h1>", f);
    batch_html_text(f, e->id);
    fputs("</h1>\n<dl class=\"figures\">", f);
    fprintf(f, "<div><dt>Verdict</dt><dd data-figure=\"verdict\">%s</dd></div>"
            "<div><dt>Points</dt><dd><span data-figure=\"score\">%d</span> "
            "<small class=\"muted\">of %d</small></dd></div>"
            "<div><dt>Halves passed</dt><dd>%d of %d</dd></div>"
            "<div><dt>Hidden spectra right</dt><dd>%d of %d</dd></div></dl>\n",
            verdict_status_to_str(v->status), sc->score, sc->max_score, sc->halves_passed,
            sc->ntests / 2, sc->hidden_passed, sc->ntests / 2 * score_exercise_of(v)->hidden);
    fputs("<p class=\"muted\">Input <code>", f);
    batch_html_text(f, e->location);
    fprintf(f, "</code> &middot; seed %llu", (unsigned long long)seed);
    if (sha)
        fprintf(f, " &middot; source SHA-256 <code>%s</code>", sha);
    fputs("</p>\n</header>\n<main>\n", f);
    tests(f, sc);
    fputs("<section id=\"before-publication\"><h2>What the student reads before the grades are "
          "published</h2>\n", f);
    pre(f, visible ? visible : "(out of memory)");
    fputs("</section>\n", f);
    if (sha) {
        fputs("<section id=\"report\"><h2>The grader's whole report</h2>\n", f);
        pre(f, full ? full : "(out of memory)");
        fputs("</section>\n", f);
    }
    fputs("</main>\n", f);
    batch_html_end(f);
    bool ok = visible && (!sha || full);
    free(visible);
    free(full);
    if (fclose(f) != 0 || !ok) {
        free(buf);
        return NULL;
    }
    return buf;
}
