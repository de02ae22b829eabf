/*
 * default_layout.h - the default layout, gradebook.csv: one row per
 * student (or input), RFC 4180.
 *
 * Columns: id, verdict, score, max_score, halves_passed (0-3),
 * hidden_passed (hidden spectra right, 0-24), diagnosis_id,
 * diagnosis_title, message (the reason of a Rejected row, the compiler's
 * errors one per line, what a Wrong Answer gets wrong), input (where the
 * submission came from), for a row from a server's records late (the
 * student's attempts after the due date: docs/LTI.md, butterfly-admin
 * class due) and best_on_time (the most points of an attempt before it,
 * "" when none was; both "" for an input from files), grading_ms (the
 * only column that changes from run to run, last). The id, the title, the message and the input are guarded
 * against spreadsheet formulas (csv_write.h).
 */
#ifndef BUTTERFLY_GRADEBOOK_DEFAULT_LAYOUT_H
#define BUTTERFLY_GRADEBOOK_DEFAULT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/due/late_policy.h"
#include "common/score.h"
#include "common/verdict.h"

#define GRADEBOOK_DEFAULT_COLUMNS 13

/* A student's attempts against the due date, for a row from a server's
 * records (store_choose.h's store_lateness, and whether the chosen one
 * is late). */
struct gradebook_late {
    unsigned late;               /* attempts after the due date */
    int best_on_time;            /* the most points on time, -1: none */
    int best_late;               /* the most points late, -1: none */
    bool chosen_late;            /* the row's own attempt is one of the late */
};

/* The header of column i ("verdict"); "" past the last. */
const char *gradebook_default_column(size_t i);

/* Writes the header row. */
void gradebook_default_header(FILE *f);

/* Writes the row of student (or input) `id`, whose submission came from
 * `input` and was graded to v, scored as sc; late: the student's
 * attempts against the due date (NULL: an input from files, with none). */
void gradebook_default_row(FILE *f, const char *id, const char *input, const struct verdict *v,
                           const struct score *sc, const struct gradebook_late *late);

/*
 * The score a learning system's gradebook (Canvas, Moodle) gets for a
 * row scored `score` (its chosen attempt's, under policy last when last,
 * else best), as an LTI platform is sent it (server/lti/lti_ags.c): a
 * student with no late attempt gets score; else the late ones count as
 * the late policy says (none: never above the best on time).
 */
double gradebook_late_score(int score, bool last, const struct gradebook_late *late,
                            const struct late_policy *p);

/* The row of a stored verdict that does not parse (never expected). */
#define GRADEBOOK_UNREADABLE_VERDICT \
    "The stored verdict of this record cannot be read; grade it again with --regrade."

/* The verdict a record's stored bytes (len of them) say, for its row: an
 * Internal Error saying GRADEBOOK_UNREADABLE_VERDICT when they do not
 * parse as one. NULL only on OOM; free it with verdict_free. */
struct verdict *gradebook_stored_verdict(const char *bytes, size_t len);

/*
 * The input column of a row from a server's records: "record ID, NAME",
 * with GRADEBOOK_UNVERIFIED_MARK after an unverified name. A new string,
 * NULL on OOM.
 */
char *gradebook_record_location(const char *record_id, const char *name, bool unverified);

#endif
