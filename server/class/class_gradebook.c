/*
 * class_gradebook.c - GET /api/class/gradebook?layout=default|canvas|moodle
 * [&task=ID] (default: the default exercise; one exercise's records per
 * file, a student's others never standing for it):
 * the gradebooks butterfly-batch --from-database writes (docs/BATCH.md),
 * from the same records, chosen alike (store/store_choose.h, policy best)
 * and written by the same writers (gradebook/), so the file downloaded
 * from the class view and the batch's file are the same bytes. A
 * student's late attempts (store_record.late) are the default layout's
 * late and best_on_time columns; Canvas's and Moodle's score counts them
 * as --late-policy says, as butterfly-batch --late-policy does.
 *
 * The store is read on the reader's thread (records_read), never on
 * libmicrohttpd's: the connection is suspended meanwhile. One walk reads
 * every record, so at most CLASS_GRADEBOOKS_AT_ONCE are made at once (a
 * second click is told to wait, and the reader stays free for the token
 * lookups and the other reads), and a file past CLASS_GRADEBOOK_MAX_BYTES
 * is refused. The reader is a connection of its own on both backends, so
 * the records' commits (and the submissions' answers that wait for them)
 * go on during the walk (bench/bench_gradebook_commits.py).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "common/score.h"
#include "common/verdict.h"
#include "gradebook/canvas.h"
#include "gradebook/default_layout.h"
#include "gradebook/feedback.h"
#include "gradebook/layout.h"
#include "gradebook/moodle.h"
#include "gradebook/roster.h"
#include "gradebook/student_id.h"
#include "server/class/class_feed.h"
#include "server/core/http.h"
#include "server/core/served.h"
#include "server/class/class_gradebook.h"
#include "server/class/class_http.h"
#include "server/identity/deferred.h"
#include "server/identity/records.h"
#include "store/store_choose.h"

/* One student's row, as the batch makes it from an input of the records. */
struct row {
    char *id;                /* printable (gradebook_display) */
    char *location;          /* the default layout's input column */
    bool usable;             /* the id passed gradebook_id_problem */
    struct verdict *v;
    struct score sc;
    char feedback[GRADEBOOK_FEEDBACK_MAX];
    char *name;              /* as the store has it (the id when unknown) */
    bool unverified;
    struct gradebook_late late;
};

static void rows_free(struct row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].id);
        free(rows[i].location);
        free(rows[i].name);
        verdict_free(rows[i].v);
    }
    free(rows);
}

/* The batch's order: id, then location (batch_inputs_sort). */
static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : strcmp(x->location, y->location);
}

/* Fills *w from chosen record c, its student's attempts against the due
 * date lt; false on OOM or a store error (in *e). */
static bool row_fill(struct store *s, struct row *w, const struct store_record *c,
                     const struct store_lateness *lt, struct store_error *e)
{
    w->late = (struct gradebook_late){ lt->late, lt->best_on_time, lt->best_late, c->late };
    struct store_student st = { 0 };
    enum store_status found = store_student_get(s, c->student, &st, e);
    if (found != STORE_OK && found != STORE_NOT_FOUND)
        return false;
    bool known = found == STORE_OK;
    w->unverified = known && !st.verified;
    w->name = strdup(known ? st.name : c->student);
    store_student_clear(&st);
    char *where = w->name ? gradebook_record_location(c->id, w->name, w->unverified) : NULL;
    size_t len = strlen(c->student);
    const char *problem = gradebook_id_problem(c->student, len);
    w->usable = problem == NULL;
    w->id = gradebook_display(c->student, len);
    w->location = where ? gradebook_display(where, strlen(where)) : NULL;
    free(where);
    if (problem) {
        w->v = verdict_new(VERDICT_REJECTED, problem);
    } else {
        w->v = gradebook_stored_verdict(c->verdict, c->verdict_len);
    }
    if (!w->id || !w->location || !w->v) {
        e->status = STORE_NO_MEMORY;
        return false;
    }
    score_verdict(w->v, &w->sc);
    gradebook_feedback(w->v, &w->sc, w->feedback);
    return true;
}

/* The store's students of the class, as Canvas's roster. */
struct roster_walk {
    struct gradebook_roster *roster;
    const json_t *members;
    bool oom;
};

static bool on_student(const struct store_student *st, void *arg)
{
    struct roster_walk *rw = arg;
    if (rw->members && !json_object_get(rw->members, st->id))
        return true;
    if (rw->roster->n == GRADEBOOK_ROSTER_MAX_ROWS)
        return false;
    if (!gradebook_roster_add_student(rw->roster, st->id, st->name, st->verified, st->section,
                                      st->email)) {
        rw->oom = true;
        return false;
    }
    return true;
}

/* The title of exercise `task`, as Canvas's column heads it: its own
 * when built in, else its id (its records outlived its definition). */
static const char *task_title(const char *task)
{
    const struct exercise *e = exercise_find(task);
    return e ? e->title : task;
}

/* The points exercise `task` is out of: its own when built in, else the
 * most any exercise holds (its records outlived its definition). */
static int task_points(const char *task)
{
    const struct exercise *e = exercise_find(task);
    return e ? score_max_of(e) : SCORE_MAX;
}

/* One exercise's rows of the class: its students' chosen records. */
struct task_rows {
    const char *task;
    struct row *rows;        /* sorted as the batch sorts its inputs */
    size_t n;
};

/* Reads exercise `task`'s rows of the students of `members` (NULL: every
 * one) into *t, which the caller frees with rows_free. False on OOM or a
 * store error (in *e). */
static bool task_rows_read(struct store *s, const char *task, const json_t *members,
                           struct task_rows *t, struct store_error *e)
{
    struct store_chosen c = { 0 };
    enum store_status st;
    *t = (struct task_rows){ task, NULL, 0 };
    READ_TWICE(st, store_records_choose(s, task, INT64_MAX, STORE_POLICY_BEST, false, &c, e));
    bool ok = st == STORE_OK;
    t->rows = ok ? calloc(c.n ? c.n : 1, sizeof *t->rows) : NULL;
    ok = t->rows != NULL;
    for (size_t i = 0; ok && i < c.n; i++) {
        if (members && !json_object_get(members, c.v[i].student))
            continue;
        ok = row_fill(s, &t->rows[t->n], &c.v[i], &c.lateness[i], e);
        t->n++;   /* a half-filled row is freed with the others */
    }
    if (ok)
        qsort(t->rows, t->n, sizeof *t->rows, row_cmp);
    store_chosen_clear(&c);
    return ok;
}

/* The learning systems' entries of t's rows, the late policy lp applied;
 * NULL on OOM. */
static struct gradebook_entry *entries_of(const struct task_rows *t, const struct late_policy *lp)
{
    struct gradebook_entry *e = calloc(t->n ? t->n : 1, sizeof *e);
    for (size_t i = 0; e && i < t->n; i++) {
        const struct row *w = &t->rows[i];
        e[i] = (struct gradebook_entry){
            .id = w->id, .usable = w->usable,
            .gradable = w->usable && w->v->status != VERDICT_INTERNAL_ERROR,
            .score = gradebook_late_score(w->sc.score, false, &w->late, lp),
            .feedback = w->feedback,
            .unverified_name = w->unverified ? w->name : NULL,
        };
    }
    return e;
}

/* Writes Canvas's or Moodle's file of the nt exercises' rows into f: one
 * exercise's as ever, or (all) a column per exercise. False on OOM. */
static bool write_lms(FILE *f, enum gradebook_layout l, bool all, const struct task_rows *t,
                      size_t nt, const struct gradebook_roster *roster,
                      const struct late_policy *lp)
{
    struct gradebook_column *cols = calloc(nt ? nt : 1, sizeof *cols);
    bool ok = cols != NULL;
    for (size_t k = 0; ok && k < nt; k++) {
        cols[k] = (struct gradebook_column){ task_title(t[k].task), task_points(t[k].task),
                                             entries_of(&t[k], lp), t[k].n };
        ok = cols[k].e != NULL;
    }
    struct gradebook_result res;
    if (ok && l == GRADEBOOK_LAYOUT_CANVAS)
        ok = gradebook_canvas_write_columns(f, cols, nt, roster, &res);
    else if (ok && all)
        ok = gradebook_moodle_write_columns(f, cols, nt, &res);
    else if (ok)
        gradebook_moodle_write(f, cols[0].e, cols[0].n, &res);
    for (size_t k = 0; cols && k < nt; k++)
        free((void *)cols[k].e);
    free(cols);
    return ok;
}

/* Writes layout l of the nt exercises' rows into f (the default layout:
 * one exercise's). False on OOM. */
static bool write_layout(FILE *f, enum gradebook_layout l, bool all, const struct task_rows *t,
                         size_t nt, const struct gradebook_roster *roster,
                         const struct late_policy *lp)
{
    if (l != GRADEBOOK_LAYOUT_DEFAULT)
        return write_lms(f, l, all, t, nt, roster, lp);
    gradebook_default_header(f);
    for (size_t i = 0; i < t[0].n; i++)
        gradebook_default_row(f, t[0].rows[i].id, t[0].rows[i].location, t[0].rows[i].v,
                              &t[0].rows[i].sc, &t[0].rows[i].late);
    return true;
}

/* The exercise of column k of the download: q's, or with ?task=all the
 * k-th served, in course order. */
static const char *column_task(const struct class_req *q, bool all, size_t k)
{
    return all ? served_at(k)->id : q->task;
}

static void gradebook_call(struct store *s, void *arg)
{
    struct request *r = arg;
    struct class_req *q = r->feature;
    enum gradebook_layout l = (enum gradebook_layout)q->gradebook_layout;
    bool all = !strcmp(q->task, EX_ID_ALL);
    struct store_error e = { 0 };
    struct gradebook_roster roster = { 0 };
    struct roster_walk rw = { &roster, q->members, false };
    size_t nt = all ? served_count() : 1;
    struct task_rows *t = calloc(nt ? nt : 1, sizeof *t);
    char *buf = NULL;
    size_t len = 0;
    enum store_status st;
    /* An open lab's names are what the students typed, its ids this
     * server's own: a learning system's import matches none of them, and
     * neither format has a line before its header to say so (Canvas and
     * Moodle read the first line as the header). Refused, with why. */
    bool has_roster = true;
    if (t && l != GRADEBOOK_LAYOUT_DEFAULT) {
        READ_TWICE(st, store_has_roster(s, &has_roster, &e));
        if (st == STORE_OK && !has_roster) {
            char msg[400];
            snprintf(msg, sizeof msg, OPEN_LAB_LMS_REFUSED,
                     l == GRADEBOOK_LAYOUT_CANVAS ? "Canvas" : "Moodle");
            deferred_error(r, ERROR_OPEN_LAB, msg);
            goto out;
        }
    }
    bool ok = t != NULL;
    for (size_t k = 0; ok && k < nt; k++)
        ok = task_rows_read(s, column_task(q, all, k), q->members, &t[k], &e);
    if (ok && l == GRADEBOOK_LAYOUT_CANVAS)
        ok = store_students_each(s, on_student, &rw, &e) == STORE_OK && !rw.oom;
    FILE *f = ok ? open_memstream(&buf, &len) : NULL;
    if (f) {
        struct late_policy lp = { (enum late_kind)r->srv->cfg.late_policy,
                                  r->srv->cfg.late_penalty_pct };
        ok = write_layout(f, l, all, t, nt, &roster, &lp);
        ok = fclose(f) == 0 && ok;
    } else {
        ok = false;
    }
    if (ok && len > CLASS_GRADEBOOK_MAX_BYTES) {
        char msg[256];
        snprintf(msg, sizeof msg, "The gradebook is over %u MiB; write it with "
                 "butterfly-batch --from-database (docs/BATCH.md).",
                 CLASS_GRADEBOOK_MAX_BYTES >> 20);
        deferred_error(r, ERROR_GRADEBOOK_TOO_LARGE, msg);
    } else if (ok) {
        r->deferred_status = 200;
        r->deferred_body = buf;
        r->deferred_len = len;
        r->deferred_type = "text/csv; charset=utf-8";
        /* the default exercise's file keeps its name; another's, and every
         * exercise's (all-), is prefixed, so that the downloads do not clash */
        bool plain = !strcmp(q->task, exercise_default()->id);
        snprintf(r->deferred_header[0], sizeof r->deferred_header[0],
                 "Content-Disposition: attachment; filename=\"%s%s%s\"", plain ? "" : q->task,
                 plain ? "" : "-", gradebook_layout_file(l));
        buf = NULL;
    } else if (e.status != STORE_OK && e.status != STORE_NO_MEMORY) {
        char msg[640];
        snprintf(msg, sizeof msg, "The records cannot be read now (%s).",
                 store_status_to_str(e.status));
        deferred_error(r, ERROR_STORE_UNAVAILABLE, msg);
    }   /* else out of memory: no body, deferred_answer says so */
out:
    free(buf);
    for (size_t k = 0; t && k < nt; k++)
        rows_free(t[k].rows, t[k].n);
    free(t);
    gradebook_roster_free(&roster);
    atomic_fetch_sub(&r->srv->gradebooks, 1);
    MHD_resume_connection(r->conn);
}

enum MHD_Result class_gradebook_get(struct request *r, const char *klass)
{
    const char *name = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "layout");
    enum gradebook_layout l;
    if (!name || !gradebook_layout_from_str(name, &l)) {
        char msg[200];
        snprintf(msg, sizeof msg, "Name the layout: ?layout=%s, %s or %s.",
                 gradebook_layout_to_str(GRADEBOOK_LAYOUT_DEFAULT),
                 gradebook_layout_to_str(GRADEBOOK_LAYOUT_CANVAS),
                 gradebook_layout_to_str(GRADEBOOK_LAYOUT_MOODLE));
        return response_error(r, ERROR_BAD_LAYOUT, msg, NULL, NULL);
    }
    const char *task = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "task");
    if (!task)
        task = exercise_default()->id;
    if (!store_task_ok(task))
        return response_error(r, ERROR_BAD_REQUEST, CLASS_BAD_TASK, NULL, NULL);
    /* every exercise's column is a learning system's layout; the default
     * layout's row per student has one exercise's verdict */
    if (!strcmp(task, EX_ID_ALL) && l == GRADEBOOK_LAYOUT_DEFAULT)
        return response_error(r, ERROR_BAD_REQUEST, CLASS_ALL_NEEDS_LMS, NULL, NULL);
    struct class_req *q = r->feature;   /* made by class_http_get */
    snprintf(q->task, sizeof q->task, "%s", task);
    bool oom;
    json_t *members = class_feed_members(r->srv->feed, klass, &oom);
    if (oom)
        return response_out_of_memory(r);
    if (atomic_fetch_add(&r->srv->gradebooks, 1) >= CLASS_GRADEBOOKS_AT_ONCE) {
        atomic_fetch_sub(&r->srv->gradebooks, 1);
        json_decref(members);
        return response_error(r, ERROR_GRADEBOOK_BUSY, "Another gradebook is being written; "
                              "try again in a moment.", MHD_HTTP_HEADER_RETRY_AFTER, "2");
    }
    q->gradebook_layout = (int)l;
    q->members = members;
    MHD_suspend_connection(r->conn);
    r->state = REQ_SUSPENDED;
    if (!records_read(r->srv->records, gradebook_call, r)) {
        atomic_fetch_sub(&r->srv->gradebooks, 1);
        deferred_error(r, ERROR_STORE_UNAVAILABLE, "The records are too busy; try again shortly.");
        MHD_resume_connection(r->conn);
    }
    return MHD_YES;
}
