/* batch_class_report.c - summary.html. */
#include "batch/reports/batch_class_report.h"

#include <string.h>

#include "batch/reports/batch_html.h"
#include "common/config.h"
#include "common/exercise/exercise.h"
#include "common/task.h"

static double percent(size_t n, size_t of)
{
    return of ? 100.0 * (double)n / (double)of : 0.0;
}

/* A bar of `pct` percent, as wide as its cell. */
static void bar(FILE *f, double pct, const char *colour)
{
    fprintf(f, "<svg class=\"bar\" viewBox=\"0 0 100 10\" preserveAspectRatio=\"none\" "
            "aria-hidden=\"true\"><rect width=\"100\" height=\"10\" fill=\"#eaeef2\"/>"
            "<rect width=\"%.2f\" height=\"10\" fill=\"%s\"/></svg>", pct, colour);
}

/* A link to a student's report, or their id alone when it has none. */
static void student_link(FILE *f, const char *id, const char *key)
{
    if (!id[0]) {
        fputs("<span class=\"muted\">(no id)</span>", f);
    } else if (key && key[0]) {
        fputs("<a href=\"", f);
        batch_html_report_href(f, "", key);
        fputs("\">", f);
        batch_html_text(f, id);
        fputs("</a>", f);
    } else {
        batch_html_text(f, id);
    }
}

static void figures(FILE *f, const struct batch_summary *s, uint64_t seed)
{
    double mean = s->rows ? (double)s->score_sum / (double)s->rows : 0.0;
    fprintf(f, "<dl class=\"figures\" id=\"figures\">"
            "<div><dt>Students (rows)</dt><dd data-figure=\"rows\">%zu</dd></div>"
            "<div><dt>Mean points</dt><dd><span data-figure=\"mean_score\">%.2f</span> "
            "<small class=\"muted\">of %d</small></dd></div>"
            "<div><dt>Full points</dt><dd data-figure=\"full_score\">%zu</dd></div>"
            "<div><dt>No points</dt><dd data-figure=\"zero_score\">%zu</dd></div>"
            "<div><dt>Seed</dt><dd data-figure=\"seed\">%llu</dd></div></dl>\n",
            s->rows, mean, score_max_of(s->ex), s->full, s->zero, (unsigned long long)seed);
}

static void verdicts(FILE *f, const struct batch_summary *s)
{
    fputs("<section id=\"verdicts\" class=\"keep\"><h2>Verdicts</h2>\n", f);
    /* one stacked bar, the table below is its legend */
    fputs("<svg class=\"chart\" viewBox=\"0 0 1000 40\" preserveAspectRatio=\"none\" "
          "role=\"img\" aria-label=\"Share of each verdict\">", f);
    double x = 0;
    for (size_t i = 0; i < BATCH_SUMMARY_NSTATUS; i++) {
        if (!s->status[i])
            continue;
        double w = 1000.0 * (double)s->status[i] / (double)s->rows;
        int st = batch_summary_status(i);
        fprintf(f, "<rect x=\"%.2f\" width=\"%.2f\" height=\"40\" fill=\"%s\"><title>", x, w,
                batch_html_status_colour(st));
        batch_html_text(f, verdict_status_to_str(st));
        fprintf(f, ": %zu</title></rect>", s->status[i]);
        x += w;
    }
    fputs("</svg>\n<div class=\"scroll\"><table><thead><tr><th>Verdict</th>"
          "<th class=\"n\">Students</th><th class=\"n\">Share</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < BATCH_SUMMARY_NSTATUS; i++) {
        if (!s->status[i])
            continue;
        int st = batch_summary_status(i);
        fprintf(f, "<tr data-status=\"%s\"><td><span class=\"legend\" style=\"background:%s\">"
                "</span>%s</td><td class=\"n\" data-count=\"%zu\">%zu</td>"
                "<td class=\"n\">%.1f%%</td></tr>\n", verdict_status_to_str(st),
                batch_html_status_colour(st), verdict_status_to_str(st), s->status[i],
                s->status[i], percent(s->status[i], s->rows));
    }
    fputs("</tbody></table></div></section>\n", f);
}

static void halves(FILE *f, const struct batch_summary *s)
{
    fputs("<section id=\"halves\" class=\"keep\"><h2>Pass rate per half</h2>\n"
          "<p class=\"muted\">A half passes when every cell is right on the visible spectrum "
          "and on every hidden one.</p>\n<div class=\"scroll\"><table><thead><tr>"
          "<th>Half</th><th>Pass rate</th><th class=\"n\">Passed</th>"
          "<th class=\"n wide\">Visible right</th><th class=\"n wide\">Hidden right</th>"
          "</tr></thead><tbody>\n", f);
    for (int k = 0; k < (int)s->ex->nsweep; k++) {
        double pct = percent(s->half_passed[k], s->rows);
        fprintf(f, "<tr data-half=\"%d\"><td>half = %d</td><td class=\"bar\">"
                "<div class=\"barline\">", s->ex->sweep[k], s->ex->sweep[k]);
        bar(f, pct, "var(--ok)");
        fprintf(f, "<span data-figure=\"pass_rate\">%.1f%%</span></div></td>"
                "<td class=\"n\" data-figure=\"passed\">%zu</td>"
                "<td class=\"n wide\" data-figure=\"visible_passed\">%zu</td>"
                "<td class=\"n wide\" data-figure=\"hidden_passed\">%zu</td></tr>\n",
                pct, s->half_passed[k], s->visible_passed[k], s->hidden_passed[k]);
    }
    fputs("</tbody></table></div></section>\n", f);
}

static void points(FILE *f, const struct batch_summary *s)
{
    size_t most = 1;
    for (int k = 0; k <= score_max_of(s->ex); k++)
        if (s->points[k] > most)
            most = s->points[k];
    const int w = 60, h = 160, top = 20, base = top + h;
    fprintf(f, "<section id=\"points\" class=\"keep\"><h2>Points distribution</h2>\n"
            "<svg class=\"chart histogram\" viewBox=\"0 0 %d %d\" role=\"img\" "
            "aria-label=\"Students per number of points\">",
            w * (score_max_of(s->ex) + 1), base + 24);
    for (int k = 0; k <= score_max_of(s->ex); k++) {
        double bh = (double)h * (double)s->points[k] / (double)most;
        fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"%s\">"
                "<title>%d points: %zu</title></rect>"
                "<text x=\"%d\" y=\"%.1f\" font-size=\"14\" text-anchor=\"middle\">%zu</text>"
                "<text x=\"%d\" y=\"%d\" font-size=\"14\" text-anchor=\"middle\" "
                "fill=\"#57606a\">%d</text>",
                k * w + 6, base - bh, w - 12, bh,
                k == score_max_of(s->ex) ? "#1a7f37" : k == 0 ? "#cf222e" : "#0969da",
                k, s->points[k], k * w + w / 2, base - bh - 4, s->points[k], k * w + w / 2,
                base + 18, k);
    }
    fputs("</svg>\n<div class=\"scroll\"><table><thead><tr><th>Points</th>"
          "<th class=\"n\">Students</th><th class=\"n\">Share</th></tr></thead><tbody>\n", f);
    for (int k = 0; k <= score_max_of(s->ex); k++)
        fprintf(f, "<tr data-points=\"%d\"><td>%d of %d</td><td class=\"n\" data-count=\"%zu\">"
                "%zu</td><td class=\"n\">%.1f%%</td></tr>\n", k, k, score_max_of(s->ex),
                s->points[k], s->points[k], percent(s->points[k], s->rows));
    fputs("</tbody></table></div></section>\n", f);
}

/* The most common mistakes or compile errors, each with its first student. */
static void tallies(FILE *f, const struct batch_summary_list *t, bool diagnoses)
{
    const char *id = diagnoses ? "mistakes" : "compile-errors";
    fprintf(f, "<section id=\"%s\"><h2>%s</h2>\n", id,
            diagnoses ? "Most common mistakes" : "Most common compile errors");
    size_t top = batch_summary_top(t);
    if (!top) {
        fprintf(f, "<p class=\"muted\">None.</p></section>\n");
        return;
    }
    fprintf(f, "<p class=\"muted\">%s Students are counted once per %s; the example is the "
            "first student by id.</p>\n<div class=\"scroll\"><table><thead><tr><th>%s</th>"
            "<th class=\"n\">Students</th><th>Example</th></tr></thead><tbody>\n",
            diagnoses ? "Wrong answers whose every cell one known mistake explains."
                      : "Compiler messages with names and numbers taken out.",
            diagnoses ? "mistake" : "message", diagnoses ? "Mistake" : "Error");
    for (size_t i = 0; i < top; i++) {
        const struct batch_summary_entry *e = &t->v[i];
        fputs("<tr data-key=\"", f);
        batch_html_text(f, e->key);
        fputs("\"><td>", f);
        if (diagnoses) {
            batch_html_text(f, e->title ? e->title : "");
            fputs(" <code class=\"muted\">", f);
            batch_html_text(f, e->key);
            fputs("</code>", f);
        } else {
            fputs("<code>", f);
            batch_html_text(f, e->key);
            fputs("</code>", f);
        }
        fprintf(f, "</td><td class=\"n\" data-count=\"%zu\">%zu</td><td>", e->count, e->count);
        student_link(f, e->example_id, e->example_key);
        fputs(": ", f);
        if (!diagnoses)
            fputs("<code>", f);
        batch_html_text(f, e->example_text);
        fputs(diagnoses ? "</td></tr>\n" : "</code></td></tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    size_t more = t->n - top + t->other;
    if (more)
        fprintf(f, "<p class=\"muted\">and %zu more.</p>\n", more);
    fputs("</section>\n", f);
}

static void students(FILE *f, const struct exercise *ex, const struct batch_row *rows, size_t n)
{
    fputs("<section id=\"students\"><h2>Students</h2>\n<div class=\"scroll\"><table>"
          "<thead><tr><th>Student</th><th>Verdict</th><th class=\"n\">Points</th>"
          "<th class=\"n wide\">Halves</th><th class=\"wide\">Mistake</th>"
          "<th class=\"wide\">Input</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct batch_row *r = &rows[i];
        fputs("<tr data-id=\"", f);
        batch_html_text(f, r->e->id);
        fputs("\"><td>", f);
        student_link(f, r->e->id, r->e->id_ok ? r->e->key : NULL);
        fprintf(f, "</td><td><span class=\"legend\" style=\"background:%s\"></span>%s</td>"
                "<td class=\"n\" data-points=\"%d\">%d</td><td class=\"n wide\">%d of %d</td>"
                "<td class=\"wide\">", batch_html_status_colour(r->status),
                verdict_status_to_str(r->status), r->score, r->score, r->halves_passed,
                (int)ex->nsweep);
        batch_html_text(f, r->mistake ? r->mistake : "");
        fputs("</td><td class=\"wide\"><code>", f);
        batch_html_text(f, r->e->location);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</tbody></table></div></section>\n", f);
}

void batch_class_report_write(FILE *f, const char *task_title, const char *subtitle,
                              const struct batch_summary *s, const struct batch_row *rows,
                              size_t n, uint64_t seed)
{
    char title[256];
    snprintf(title, sizeof title, "%s: class report", task_title);
    batch_html_begin(f, title);
    fputs("<header><h1>", f);
    batch_html_text(f, title);
    fputs("</h1>\n<p class=\"muted\">", f);
    batch_html_text(f, subtitle);
    fprintf(f, " &middot; graded by butterfly-batch %s</p>\n", BUTTERFLY_VERSION);
    figures(f, s, seed);
    fputs("<p class=\"no-print\"><a href=\"#verdicts\">Verdicts</a> &middot; "
          "<a href=\"#halves\">Halves</a> &middot; <a href=\"#points\">Points</a> &middot; "
          "<a href=\"#mistakes\">Mistakes</a> &middot; <a href=\"#compile-errors\">Compile "
          "errors</a> &middot; <a href=\"#students\">Students</a></p>\n</header>\n<main>\n", f);
    verdicts(f, s);
    halves(f, s);
    points(f, s);
    tallies(f, &s->diagnoses, true);
    tallies(f, &s->errors, false);
    students(f, s->ex, rows, n);
    fprintf(f, "</main>\n<footer><p class=\"muted\">The hidden spectra were drawn from seed "
            "%llu: <code>butterfly-batch --seed %llu</code> on the same submissions gives the "
            "same grades. Figures are those of summary.json.</p></footer>\n",
            (unsigned long long)seed, (unsigned long long)seed);
    batch_html_end(f);
}
