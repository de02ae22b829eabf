/*
 * class_model.c - the class in memory (class_model.h).
 *
 * Students and records live in growing arrays, each with an open-address
 * hash index by id, so that an event costs O(1) and a summary O(students).
 */
#include "server/class/class_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "common/verdict.h"
#include "gradebook/csv_write.h"
#include "gradebook/layout.h"

/* An open-address index of ids to positions (position + 1; 0 empty). */
struct index {
    uint32_t *slot;
    size_t cap;      /* a power of two */
};

struct class_model {
    struct class_thresholds t;
    struct class_student *st;
    size_t nst, capst;
    struct index st_index;
    struct class_rec *rec;
    size_t nrec, caprec;
    struct index rec_index;
    char task[CLASS_MAX_TASKS][EX_ID_MAX + 1];   /* the exercises told apart */
    size_t ntask;
};

/* A student's progress at an exercise not in the table: nothing yet. */
static const struct class_progress no_progress = { .last_status = -1 };

/* The place of exercise id in m's table, -1 when it is not there. */
static int task_find(const struct class_model *m, const char *id)
{
    for (size_t t = 0; t < m->ntask; t++)
        if (!strcmp(m->task[t], id))
            return (int)t;
    return -1;
}

/* The place of exercise id, added when new; -1 when the table is full. */
static int task_put(struct class_model *m, const char *id)
{
    int t = task_find(m, id);
    if (t >= 0 || m->ntask == CLASS_MAX_TASKS || strlen(id) > EX_ID_MAX)
        return t;
    snprintf(m->task[m->ntask], sizeof m->task[0], "%s", id);
    return (int)m->ntask++;
}

static uint64_t hash_id(const char *s)
{
    uint64_t h = 1469598103934665603ull;   /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

typedef const char *(*id_of_fn)(const struct class_model *m, size_t i);

static const char *student_id_at(const struct class_model *m, size_t i)
{
    return m->st[i].id;
}

static const char *record_id_at(const struct class_model *m, size_t i)
{
    return m->rec[i].id;
}

static long index_find(const struct class_model *m, const struct index *x, id_of_fn id_of,
                       const char *id)
{
    if (!x->cap)
        return -1;
    for (size_t h = hash_id(id) & (x->cap - 1);; h = (h + 1) & (x->cap - 1)) {
        uint32_t v = x->slot[h];
        if (!v)
            return -1;
        if (!strcmp(id_of(m, v - 1), id))
            return (long)(v - 1);
    }
}

static void index_put_raw(struct index *x, const char *id, size_t pos)
{
    size_t h = hash_id(id) & (x->cap - 1);
    while (x->slot[h])
        h = (h + 1) & (x->cap - 1);
    x->slot[h] = (uint32_t)(pos + 1);
}

/* Adds position pos (its id already in place), growing at half full. */
static bool index_add(const struct class_model *m, struct index *x, id_of_fn id_of, size_t n,
                      size_t pos)
{
    if ((n + 1) * 2 > x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 64;
        uint32_t *slot = calloc(cap, sizeof *slot);
        if (!slot)
            return false;
        free(x->slot);
        x->slot = slot;
        x->cap = cap;
        for (size_t i = 0; i < n; i++)
            if (i != pos)
                index_put_raw(x, id_of(m, i), i);
    }
    index_put_raw(x, id_of(m, pos), pos);
    return true;
}

static void copy_text(char *out, const char *in)
{
    snprintf(out, CLASS_TEXT_MAX, "%s", in ? in : "");
}

struct class_model *class_model_new(const struct class_thresholds *t)
{
    struct class_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->t = *t;
    /* the built-in exercises first, in course order: the order every
     * per-exercise list shows */
    for (size_t i = 0; i < exercise_count(); i++)
        task_put(m, exercise_at(i)->id);
    return m;
}

void class_model_free(struct class_model *m)
{
    if (!m)
        return;
    free(m->st);
    free(m->st_index.slot);
    free(m->rec);
    free(m->rec_index.slot);
    free(m);
}

static long student_add(struct class_model *m, const char *id)
{
    if (m->nst == m->capst) {
        size_t cap = m->capst ? m->capst * 2 : 64;
        struct class_student *v = realloc(m->st, cap * sizeof *v);
        if (!v)
            return -1;
        m->st = v;
        m->capst = cap;
    }
    struct class_student *s = &m->st[m->nst];
    memset(s, 0, sizeof *s);
    copy_text(s->id, id);
    s->all = no_progress;
    for (size_t t = 0; t < CLASS_MAX_TASKS; t++)
        s->task[t] = no_progress;
    if (!index_add(m, &m->st_index, student_id_at, m->nst, m->nst))
        return -1;
    return (long)m->nst++;
}

bool class_model_put_student(struct class_model *m, const char *id, const char *name,
                             const char *section, bool verified)
{
    long i = index_find(m, &m->st_index, student_id_at, id);
    if (i < 0 && (i = student_add(m, id)) < 0)
        return false;
    struct class_student *s = &m->st[i];
    copy_text(s->name, name);
    copy_text(s->section, section);
    s->verified = verified;
    return true;
}

bool class_model_has_student(const struct class_model *m, const char *id)
{
    return index_find(m, &m->st_index, student_id_at, id) >= 0;
}

bool class_model_forget(struct class_model *m, const char *id)
{
    long si = index_find(m, &m->st_index, student_id_at, id);
    if (si < 0)
        return false;
    /* their records go, the others keep their order; the last student
     * takes the forgotten one's place */
    size_t last = m->nst - 1, kept = 0;
    for (size_t i = 0; i < m->nrec; i++) {
        if (m->rec[i].student == (uint32_t)si)
            continue;
        m->rec[kept] = m->rec[i];
        if (m->rec[kept].student == (uint32_t)last)
            m->rec[kept].student = (uint32_t)si;
        kept++;
    }
    m->nrec = kept;
    if ((size_t)si != last)
        m->st[si] = m->st[last];
    m->nst = last;
    /* both indexes again: positions moved (the capacities stay) */
    memset(m->st_index.slot, 0, m->st_index.cap * sizeof *m->st_index.slot);
    for (size_t i = 0; i < m->nst; i++)
        index_put_raw(&m->st_index, m->st[i].id, i);
    if (m->rec_index.cap) {
        memset(m->rec_index.slot, 0, m->rec_index.cap * sizeof *m->rec_index.slot);
        for (size_t i = 0; i < m->nrec; i++)
            index_put_raw(&m->rec_index, m->rec[i].id, i);
    }
    return true;
}

bool class_model_has_record(const struct class_model *m, const char *id)
{
    return index_find(m, &m->rec_index, record_id_at, id) >= 0;
}

long class_model_find(const struct class_model *m, const char *id)
{
    return index_find(m, &m->rec_index, record_id_at, id);
}

/* The mistake of a verdict: the diagnosis, or the first compile error. */
static void verdict_facts(const struct store_record *r, struct class_rec *out)
{
    memset(out->halves, -1, sizeof out->halves);
    json_t *j = json_loadb(r->verdict ? r->verdict : "", r->verdict_len, 0, NULL);
    if (!j)
        return;
    json_t *d = json_object_get(j, "diagnosis");
    json_t *diags = json_object_get(j, "diagnostics");
    if (json_is_object(d) && json_is_string(json_object_get(d, "id"))) {
        snprintf(out->key, sizeof out->key, "mistake:%s",
                 json_string_value(json_object_get(d, "id")));
        json_t *title = json_object_get(d, "title");
        copy_text(out->label, json_is_string(title) ? json_string_value(title)
                                                    : out->key + strlen("mistake:"));
    } else if (r->status == VERDICT_COMPILATION_ERROR && json_array_size(diags)) {
        json_t *msg = json_object_get(json_array_get(diags, 0), "message");
        const char *text = json_is_string(msg) ? json_string_value(msg) : "compile error";
        snprintf(out->key, sizeof out->key, "compile:%s", text);
        copy_text(out->label, text);
    }
    json_t *halves = json_object_get(j, "halves");
    for (size_t k = 0; k < EX_MAX_SWEEP && k < json_array_size(halves); k++) {
        json_t *p = json_object_get(json_array_get(halves, k), "passed");
        if (json_is_boolean(p))
            out->halves[k] = json_is_true(p) ? 1 : 0;
    }
    json_decref(j);
}

/* Keeps the newest half when the cap is reached (replay of the oldest is
 * then a reset: the page reloads). */
static bool make_room(struct class_model *m)
{
    if (m->nrec >= CLASS_MAX_RECORDS) {
        size_t keep = m->nrec / 2;
        memmove(m->rec, m->rec + (m->nrec - keep), keep * sizeof *m->rec);
        m->nrec = keep;
        memset(m->rec_index.slot, 0, m->rec_index.cap * sizeof *m->rec_index.slot);
        for (size_t i = 0; i < m->nrec; i++)
            index_put_raw(&m->rec_index, m->rec[i].id, i);
    }
    if (m->nrec == m->caprec) {
        size_t cap = m->caprec ? m->caprec * 2 : 256;
        struct class_rec *v = realloc(m->rec, cap * sizeof *v);
        if (!v)
            return false;
        m->rec = v;
        m->caprec = cap;
    }
    return true;
}

/* The key of record id's mistake ("" when none, or no longer kept). */
static const char *key_of(const struct class_model *m, const char *id)
{
    long r = id[0] ? class_model_find(m, id) : -1;
    return r >= 0 ? m->rec[r].key : "";
}

/* Counts attempt x into p, whose latest attempt's key was prev_key;
 * true when x is now p's latest (the one received last: a late commit
 * does not win). */
static bool progress_add(struct class_progress *p, const struct class_rec *x,
                         const char *prev_key)
{
    if (!p->attempts || x->received_ms < p->first_ms)
        p->first_ms = x->received_ms;
    p->attempts++;
    p->late += x->late;
    if (x->points > p->best_points)
        p->best_points = x->points;
    if (x->max_points > p->max_points)
        p->max_points = x->max_points;
    if (x->status == VERDICT_ACCEPTED)
        p->accepted = true;
    if (p->last_status >= 0 && x->received_ms < p->last_ms)
        return false;
    p->repeats = x->key[0] && !strcmp(x->key, prev_key) ? p->repeats + 1 : (x->key[0] ? 1 : 0);
    p->last_ms = x->received_ms;
    p->last_status = x->status;
    snprintf(p->last_id, sizeof p->last_id, "%s", x->id);
    return true;
}

/* Adds x (its facts filled) for student sid ("" for nobody). */
static long add_rec(struct class_model *m, const char *sid, const struct class_rec *in)
{
    if (class_model_has_record(m, in->id) || !make_room(m))
        return -1;
    long si = index_find(m, &m->st_index, student_id_at, sid);
    if (si < 0) {
        if (!class_model_put_student(m, sid, *sid ? "(unknown)" : "(signed out)", "", false))
            return -1;
        si = index_find(m, &m->st_index, student_id_at, sid);
    }
    struct class_rec *x = &m->rec[m->nrec];
    *x = *in;
    x->student = (uint32_t)si;
    x->t = (int8_t)task_put(m, x->task);
    struct class_student *s = &m->st[si];
    /* the exercise's latest key is its record's: read before x is indexed */
    const char *prev = x->t >= 0 ? key_of(m, s->task[x->t].last_id) : "";
    char prev_key[CLASS_TEXT_MAX];
    copy_text(prev_key, prev);
    if (!index_add(m, &m->rec_index, record_id_at, m->nrec, m->nrec))
        return -1;
    if (x->t >= 0)
        progress_add(&s->task[x->t], x, prev_key);
    if (progress_add(&s->all, x, s->last_key)) {
        copy_text(s->last_key, x->key);
        copy_text(s->last_label, x->label);
    }
    return (long)m->nrec++;
}

static void rec_head(struct class_rec *x, const char *id, const char *task, int64_t received_ms,
                     int64_t graded_ms, int status, int points, int max_points)
{
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "%s", id);
    /* a record with no task is of a store older than exercises: the default's */
    snprintf(x->task, sizeof x->task, "%s", task && *task ? task : exercise_default()->id);
    x->received_ms = received_ms;
    x->graded_ms = graded_ms;
    x->status = status;
    x->points = points;
    x->max_points = max_points;
    memset(x->halves, -1, sizeof x->halves);
}

long class_model_add(struct class_model *m, const struct store_record *r)
{
    struct class_rec x;
    rec_head(&x, r->id, r->task, r->received_ms, r->graded_ms, r->status, r->points,
             r->max_points);
    x.late = r->late;
    verdict_facts(r, &x);
    return add_rec(m, r->student ? r->student : "", &x);
}

long class_model_add_facts(struct class_model *m, const struct store_record *r,
                           const struct verdict_shown *f)
{
    struct class_rec x;
    _Static_assert(sizeof x.key == sizeof f->key && sizeof x.label == sizeof f->label &&
                   sizeof x.halves == sizeof f->halves,
                   "the class view keeps the verdict's facts as they are");
    rec_head(&x, r->id, r->task, r->received_ms, r->graded_ms, r->status, r->points,
             r->max_points);
    x.late = r->late;
    memcpy(x.halves, f->halves, sizeof x.halves);
    memcpy(x.key, f->key, sizeof x.key);
    memcpy(x.label, f->label, sizeof x.label);
    return add_rec(m, r->student ? r->student : "", &x);
}

long class_model_add_row(struct class_model *m, const struct store_class_row *r)
{
    struct store_record head = { .task = (char *)r->task, .student = (char *)r->student,
                                 .received_ms = r->received_ms,
                                 .graded_ms = r->graded_ms, .status = r->status,
                                 .points = r->points, .max_points = r->max_points,
                                 .late = r->late };
    snprintf(head.id, sizeof head.id, "%s", r->id);
    return class_model_add_facts(m, &head, &r->shown);
}

size_t class_model_count(const struct class_model *m)
{
    return m->nrec;
}

size_t class_model_replay_from(const struct class_model *m, size_t i, int64_t slack_ms)
{
    int64_t from = m->rec[i].graded_ms - slack_ms;
    size_t k = i;
    /* a bounded look back: records of the last slack_ms are few */
    while (k > 0 && i - k < 10000 && m->rec[k - 1].graded_ms >= from)
        k--;
    for (; k < i; k++)
        if (m->rec[k].graded_ms >= from)
            break;
    return k == i ? i + 1 : k;
}

const char *class_model_record_id(const struct class_model *m, size_t i)
{
    return m->rec[i].id;
}

static int rec_cmp(const void *a, const void *b)
{
    const struct class_rec *x = a, *y = b;
    if (x->graded_ms != y->graded_ms)
        return x->graded_ms < y->graded_ms ? -1 : 1;
    return strcmp(x->id, y->id);
}

void class_model_sort(struct class_model *m)
{
    if (!m->nrec)
        return;
    qsort(m->rec, m->nrec, sizeof *m->rec, rec_cmp);
    memset(m->rec_index.slot, 0, m->rec_index.cap * sizeof *m->rec_index.slot);
    for (size_t i = 0; i < m->nrec; i++)
        index_put_raw(&m->rec_index, m->rec[i].id, i);
}

const char *class_model_last_id(const struct class_model *m)
{
    return m->nrec ? m->rec[m->nrec - 1].id : "";
}

/* What a tile shows of a student: their progress at one exercise or at
 * all, and the mistake of its latest attempt. */
struct view {
    const struct class_progress *p;
    const char *key, *label;
};

/* t: an exercise's place in the table; -1: all of them; past the table
 * (CLASS_MAX_TASKS): one with no record. */
static struct view view_of(const struct class_model *m, const struct class_student *s, int t)
{
    if (t < 0)
        return (struct view){ &s->all, s->last_key, s->last_label };
    if (t >= (int)m->ntask)
        return (struct view){ &no_progress, "", "" };
    const struct class_progress *p = &s->task[t];
    long r = p->last_id[0] ? class_model_find(m, p->last_id) : -1;
    return (struct view){ p, r >= 0 ? m->rec[r].key : "", r >= 0 ? m->rec[r].label : "" };
}

/* The view's t for ?task=id (NULL: -1, all). */
static int task_of(const struct class_model *m, const char *id)
{
    if (!id)
        return -1;
    int t = task_find(m, id);
    return t >= 0 ? t : (int)CLASS_MAX_TASKS;
}

static bool progress_stuck(const struct class_model *m, const struct class_progress *p)
{
    if (p->accepted || !p->attempts)
        return false;
    int64_t spread = p->last_ms - p->first_ms;
    if (p->attempts >= m->t.attempts && spread >= (int64_t)m->t.minutes * 60000)
        return true;
    return m->t.repeats && p->repeats >= m->t.repeats;
}

bool class_model_stuck(const struct class_model *m, const struct class_student *s)
{
    return progress_stuck(m, &s->all);
}

static bool silent(const struct class_progress *p, int64_t now_ms)
{
    return !p->accepted &&
           (!p->attempts || now_ms - p->last_ms >= (int64_t)CLASS_SILENT_MINUTES * 60000);
}

static json_t *status_json(int status)
{
    if (status < 0)
        return json_null();
    return json_pack("{s:i, s:s, s:s}", "id", status, "name",
                     verdict_status_to_str((enum verdict_status)status), "slug",
                     verdict_status_slug((enum verdict_status)status));
}

/* The student's cell per exercise tried: {"ID": {attempts, best_points,
 * max_points, accepted, late}}. */
static json_t *progress_json(const struct class_model *m, const struct class_student *s)
{
    json_t *o = json_object();
    for (size_t t = 0; o && t < m->ntask; t++) {
        const struct class_progress *p = &s->task[t];
        if (p->attempts)
            json_object_set_new(o, m->task[t],
                                json_pack("{s:i, s:i, s:i, s:b, s:i}", "attempts", p->attempts,
                                          "best_points", p->best_points, "max_points",
                                          p->max_points, "accepted", p->accepted, "late",
                                          p->late));
    }
    return o;
}

static json_t *tile_json(const struct class_model *m, const struct class_student *s, int t,
                         int64_t now_ms)
{
    struct view v = view_of(m, s, t);
    const struct class_progress *p = v.p;
    bool stuck = progress_stuck(m, p);
    /* needs help: stuck first (longest at it first), then trying without
     * passing, then silent, then done */
    double need = p->accepted ? 0 : stuck ? 3000 + p->attempts
                : p->attempts ? 1000 + p->attempts : 500;
    return json_pack("{s:s, s:s, s:s, s:b, s:i, s:o, s:o, s:i, s:i, s:b, s:o, s:s, s:s, s:s?,"
                     " s:b, s:b, s:f, s:i, s:i, s:o}",
                     "id", s->id, "name", s->name, "section", s->section,
                     "verified", s->verified, "attempts", p->attempts,
                     "first_ms", p->attempts ? json_integer(p->first_ms) : json_null(),
                     "last_ms", p->attempts ? json_integer(p->last_ms) : json_null(),
                     "best_points", p->best_points, "max_points", p->max_points,
                     "accepted", p->accepted, "last_status", status_json(p->last_status),
                     "mistake", v.label, "mistake_key", v.key,
                     "last_id", p->last_id[0] ? p->last_id : NULL,
                     "stuck", stuck, "silent", silent(p, now_ms), "needs_help", need,
                     "repeats", p->repeats, "late", p->late, "progress", progress_json(m, s));
}

json_t *class_model_tile(const struct class_model *m, const char *id, int64_t now_ms)
{
    long i = index_find(m, &m->st_index, student_id_at, id);
    return i < 0 ? NULL : tile_json(m, &m->st[i], -1, now_ms);
}

/* The built-in exercise of record x; NULL for one the server does not
 * serve (a record of an exercise since removed). */
static const struct exercise *rec_exercise(const struct class_model *m,
                                           const struct class_rec *x)
{
    return x->t >= 0 && (size_t)x->t < m->ntask ? exercise_find(m->task[x->t]) : NULL;
}

/* How many of x's marks mean a value of its sweep: all its exercise's
 * values; every mark kept when the exercise is unknown. */
static size_t rec_sweep_n(const struct class_model *m, const struct class_rec *x)
{
    const struct exercise *e = rec_exercise(m, x);
    return e ? e->nsweep : EX_MAX_SWEEP;
}

json_t *class_model_event(const struct class_model *m, size_t i, int64_t now_ms)
{
    const struct class_rec *x = &m->rec[i];
    const struct class_student *s = &m->st[x->student];
    json_t *halves = json_array();
    for (size_t k = 0; k < rec_sweep_n(m, x); k++)
        json_array_append_new(halves, x->halves[k] < 0 ? json_null()
                                                       : json_boolean(x->halves[k]));
    return json_pack("{s:s, s:s, s:s, s:I, s:I, s:o, s:i, s:i, s:s, s:s, s:o, s:b, s:o}",
                     "id", x->id, "task", x->task,
                     "student", s->id, "received_ms", (json_int_t)x->received_ms,
                     "graded_ms", (json_int_t)x->graded_ms, "status", status_json(x->status),
                     "points", x->points, "max_points", x->max_points, "mistake", x->label,
                     "mistake_key", x->key, "halves", halves, "late", x->late,
                     "tile", tile_json(m, s, -1, now_ms));
}

json_t *class_model_thresholds(const struct class_model *m)
{
    return json_pack("{s:i, s:i, s:i, s:i}", "attempts", m->t.attempts, "minutes",
                     m->t.minutes, "repeats", m->t.repeats, "silent_minutes",
                     CLASS_SILENT_MINUTES);
}

/* A count of one mistake among the students' latest attempts. */
struct tally {
    const char *key, *label, *example;   /* example: a record id */
    unsigned n;
};

static int tally_cmp(const void *a, const void *b)
{
    const struct tally *x = a, *y = b;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return strcmp(x->key, y->key);
}

/* Whether s is in the class: a student's tile (not the signed-out
 * submissions) and, when members is given, one of its keys. */
static bool in_class(const struct class_student *s, const json_t *members)
{
    return s->id[0] && (!members || json_object_get(members, s->id));
}

/* Whether record x counts in view t (-1: every record). */
static bool rec_in(const struct class_rec *x, int t)
{
    return t < 0 || x->t == t;
}

/* The summary per exercise of the table: its students who tried it,
 * who got it Accepted, and its records, of the class (counted as the
 * summary's own "records" is, with ?task= that exercise). */
static json_t *exercises_json(const struct class_model *m, const json_t *members)
{
    unsigned records[CLASS_MAX_TASKS] = { 0 };
    for (size_t i = 0; i < m->nrec; i++) {   /* one pass, every exercise */
        const struct class_rec *x = &m->rec[i];
        if (x->t >= 0 && (!members || in_class(&m->st[x->student], members)))
            records[x->t]++;
    }
    json_t *a = json_array();
    for (size_t t = 0; a && t < m->ntask; t++) {
        unsigned submitted = 0, accepted = 0;
        for (size_t i = 0; i < m->nst; i++) {
            const struct class_student *s = &m->st[i];
            if (!in_class(s, members))
                continue;
            submitted += s->task[t].attempts > 0;
            accepted += s->task[t].accepted;
        }
        const struct exercise *e = exercise_find(m->task[t]);
        json_array_append_new(a, json_pack("{s:s, s:s, s:b, s:i, s:i, s:i}", "id", m->task[t],
                                           "title", e ? e->title : m->task[t], "built_in",
                                           e != NULL, "submitted", submitted, "accepted",
                                           accepted, "records", records[t]));
    }
    return a;
}

/* The pass rate at one value of an exercise's parameter (half = 8), over
 * every student's latest attempt of the view. */
struct sweep_tally {
    const char *param;   /* the exercise's (static) */
    int value;
    unsigned passed, run;
};

/* The sweep values a view tallies: its exercise's; with every exercise
 * (t < 0), the default exercise's (an empty class shows half = 1, 2, 4 as
 * ever) and those of each exercise some latest attempt counted is of.
 * Grouped by parameter in the table's order, each parameter's values
 * rising, a value two exercises share once (butterfly's and butterfly16's
 * half = 1 are one line). */
struct sweep_tallies {
    struct sweep_tally a[CLASS_MAX_TASKS * EX_MAX_SWEEP];
    size_t n;
};

static long tally_find(const struct sweep_tallies *w, const char *param, int value)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->a[i].value == value && !strcmp(w->a[i].param, param))
            return (long)i;
    return -1;
}

static void tally_put(struct sweep_tallies *w, const char *param, int value)
{
    if (tally_find(w, param, value) >= 0 || w->n == sizeof w->a / sizeof w->a[0])
        return;
    size_t at = w->n;   /* after the last of param's values below value, else at the end */
    bool seen = false;
    for (size_t i = 0; i < w->n; i++) {
        bool same = !strcmp(w->a[i].param, param);
        if (same && w->a[i].value > value) {
            at = i;
            break;
        }
        if (seen && !same) {
            at = i;
            break;
        }
        seen = seen || same;
    }
    memmove(&w->a[at + 1], &w->a[at], (w->n - at) * sizeof w->a[0]);
    w->a[at] = (struct sweep_tally){ .param = param, .value = value };
    w->n++;
}

static void tallies_of_view(const struct class_model *m, int vt,
                            const bool counted[CLASS_MAX_TASKS], struct sweep_tallies *w)
{
    w->n = 0;
    for (size_t t = 0; t < m->ntask; t++) {
        const struct exercise *e = exercise_find(m->task[t]);
        bool in = vt < 0 ? counted[t] || e == exercise_default() : (size_t)vt == t;
        for (size_t k = 0; in && e && k < e->nsweep; k++)
            tally_put(w, e->param, e->sweep[k]);
    }
}

/* The latest attempt of student s in view vt, -1 for none (or not of the class). */
static long latest_of(const struct class_model *m, const struct class_student *s, int vt,
                      const json_t *members)
{
    const char *last = view_of(m, s, vt).p->last_id;
    return in_class(s, members) && last[0] ? class_model_find(m, last) : -1;
}

/* Counts record x's marks, each at its value of its exercise's sweep. */
static void tally_rec(const struct class_model *m, const struct class_rec *x,
                      struct sweep_tallies *w)
{
    const struct exercise *e = rec_exercise(m, x);
    for (size_t k = 0; e && k < e->nsweep; k++) {
        long i = x->halves[k] >= 0 ? tally_find(w, e->param, e->sweep[k]) : -1;
        if (i >= 0) {
            w->a[i].run++;
            w->a[i].passed += x->halves[k] == 1;
        }
    }
}

/* [{half, param, passed, run}]: "half" is the value (the name of the
 * butterfly's parameter, kept for the readers from before), param its name. */
static json_t *tallies_json(const struct sweep_tallies *w)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < w->n; i++)
        json_array_append_new(a, json_pack("{s:i, s:s, s:i, s:i}", "half", w->a[i].value,
                                           "param", w->a[i].param, "passed", w->a[i].passed,
                                           "run", w->a[i].run));
    return a;
}

json_t *class_model_summary(const struct class_model *m, const json_t *members,
                            const char *task, int64_t now_ms)
{
    int vt = task_of(m, task);
    unsigned submitted = 0, accepted = 0, stuck = 0, quiet = 0, students = 0;
    struct tally *t = calloc(m->nst + 1, sizeof *t);
    struct sweep_tallies *sw = malloc(sizeof *sw);
    size_t nt = 0;
    if (!t || !sw) {
        free(t);
        free(sw);
        return NULL;
    }
    for (size_t i = 0; i < m->nst; i++) {
        const struct class_student *s = &m->st[i];
        if (!in_class(s, members))
            continue;   /* signed-out submissions: nobody's tile; another class's */
        struct view v = view_of(m, s, vt);
        students++;
        submitted += v.p->attempts > 0;
        accepted += v.p->accepted;
        stuck += progress_stuck(m, v.p);
        quiet += silent(v.p, now_ms);
        if (!v.key[0])
            continue;
        size_t k = 0;
        while (k < nt && strcmp(t[k].key, v.key))
            k++;   /* few distinct mistakes: a linear look-up is enough */
        if (k == nt)
            t[nt++] = (struct tally){ v.key, v.label, v.p->last_id, 0 };
        t[k].n++;
    }
    /* the pass rate per sweep value over every student's latest attempt */
    bool counted[CLASS_MAX_TASKS] = { false };
    for (size_t i = 0; i < m->nst; i++) {
        long r = latest_of(m, &m->st[i], vt, members);
        if (r >= 0 && m->rec[r].t >= 0)
            counted[m->rec[r].t] = true;
    }
    tallies_of_view(m, vt, counted, sw);
    for (size_t i = 0; i < m->nst; i++) {
        long r = latest_of(m, &m->st[i], vt, members);
        if (r >= 0)
            tally_rec(m, &m->rec[r], sw);
    }
    qsort(t, nt, sizeof *t, tally_cmp);
    json_t *top = json_array();
    for (size_t k = 0; k < nt && k < CLASS_TOP_MISTAKES; k++)
        json_array_append_new(top, json_pack("{s:s, s:s, s:s, s:i, s:s}", "key", t[k].key,
                                             "kind", !strncmp(t[k].key, "compile:", 8)
                                                 ? "compile_error" : "mistake",
                                             "label", t[k].label, "count", t[k].n,
                                             "example", t[k].example));
    free(t);
    json_t *halves = tallies_json(sw);
    free(sw);
    /* the share of students with an Accepted, over the session, in at
     * most CLASS_SERIES_POINTS steps of the records' own order */
    /* the records of the class (of a launch's class: its students' only) */
    size_t nrec = 0, late = 0;
    for (size_t i = 0; i < m->nrec; i++) {
        bool in = rec_in(&m->rec[i], vt) &&
                  (!members || in_class(&m->st[m->rec[i].student], members));
        nrec += in;
        late += in && m->rec[i].late;
    }
    json_t *series = json_array();
    if (nrec) {
        size_t step = (nrec + CLASS_SERIES_POINTS - 1) / CLASS_SERIES_POINTS, k = 0;
        unsigned char *seen = calloc(m->nst ? m->nst : 1, 1);
        unsigned done = 0;
        for (size_t i = 0; seen && i < m->nrec; i++) {
            const struct class_rec *x = &m->rec[i];
            if (!rec_in(x, vt) || (members && !in_class(&m->st[x->student], members)))
                continue;
            if (x->status == VERDICT_ACCEPTED && !seen[x->student] &&
                in_class(&m->st[x->student], members)) {
                seen[x->student] = 1;
                done++;
            }
            if (++k % step == 0 || k == nrec)
                json_array_append_new(series, json_pack("{s:I, s:f}", "t_ms",
                                                        (json_int_t)x->graded_ms, "share",
                                                        students ? (double)done / students
                                                                 : 0.0));
        }
        free(seen);
    }
    return json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:s, s:I, s:s?,"
                     " s:o}",
                     "students", students, "submitted", submitted, "accepted", accepted,
                     "stuck", stuck, "silent", quiet, "records", (int)nrec, "late", (int)late,
                     "halves", halves, "mistakes", top, "accepted_series", series,
                     "thresholds", class_model_thresholds(m), "last_event_id",
                     class_model_last_id(m), "now_ms", (json_int_t)now_ms, "task", task,
                     "exercises", exercises_json(m, members));
}

json_t *class_model_students(const struct class_model *m, const json_t *members,
                             const char *task, int64_t now_ms)
{
    int vt = task_of(m, task);
    json_t *a = json_array();
    for (size_t i = 0; a && i < m->nst; i++) {
        if (!in_class(&m->st[i], members))
            continue;
        json_array_append_new(a, tile_json(m, &m->st[i], vt, now_ms));
    }
    return json_pack("{s:o, s:o, s:s}", "students", a, "thresholds",
                     class_model_thresholds(m), "last_event_id", class_model_last_id(m));
}

char *class_model_gradebook_csv(const struct class_model *m, const json_t *members,
                                size_t *len)
{
    enum { FIXED = 10, COLUMNS = FIXED + CLASS_MAX_TASKS };
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        return NULL;
    const char *header[COLUMNS] = {
        "student_id", "name", "section", "verified", "attempts", "best_points", "max_points",
        "accepted", "latest_verdict", "late",
    };
    /* one column per exercise, named by its id: what a spreadsheet of the
     * course sums, the student's best at each */
    for (size_t t = 0; t < m->ntask; t++)
        header[FIXED + t] = m->task[t];
    size_t ncol = FIXED + m->ntask;
    csv_write_row(f, header, ncol, CSV_GUARD_ALL);
    for (size_t i = 0; i < m->nst; i++) {
        const struct class_student *s = &m->st[i];
        if (!in_class(s, members))
            continue;
        const struct class_progress *p = &s->all;
        char num[4][16], best[CLASS_MAX_TASKS][16];
        snprintf(num[3], sizeof num[3], "%u", p->late);
        snprintf(num[0], sizeof num[0], "%u", p->attempts);
        snprintf(num[1], sizeof num[1], "%d", p->best_points);
        snprintf(num[2], sizeof num[2], "%d", p->max_points);
        const char *cells[COLUMNS] = {
            s->id, s->name, s->section,
            s->verified ? "yes" : "no " GRADEBOOK_UNVERIFIED_MARK,
            num[0], num[1], num[2], p->accepted ? "yes" : "no",
            p->last_status < 0 ? "" : verdict_status_to_str((enum verdict_status)p->last_status),
            num[3],
        };
        for (size_t t = 0; t < m->ntask; t++) {
            best[t][0] = '\0';
            if (s->task[t].attempts)
                snprintf(best[t], sizeof best[t], "%d", s->task[t].best_points);
            cells[FIXED + t] = best[t];
        }
        /* every cell guarded, as in every gradebook (the id, the name and
         * the section come from outside; the rest never needs it) */
        csv_write_row(f, cells, ncol, CSV_GUARD_ALL);
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

const char *class_model_record_student(const struct class_model *m, size_t i)
{
    const char *id = i < m->nrec ? m->st[m->rec[i].student].id : "";
    return *id ? id : NULL;
}
