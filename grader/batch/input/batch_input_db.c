/* batch_input_db.c - inputs from a grading server's records (batch_input_db.h). */
#include "batch/input/batch_input_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/task.h"
#include "store/store.h"

bool batch_policy_from_str(const char *s, enum batch_policy *p)
{
    if (!strcmp(s, "best"))
        *p = BATCH_POLICY_BEST;
    else if (!strcmp(s, "last"))
        *p = BATCH_POLICY_LAST;
    else
        return false;
    return true;
}

const char *batch_policy_to_str(enum batch_policy p)
{
    return p == BATCH_POLICY_LAST ? "last" : "best";
}

bool batch_until_parse(const char *s, int64_t *ms)
{
    if (s[0] == '@') {
        char *end;
        long long secs = strtoll(s + 1, &end, 10);
        if (end == s + 1 || *end || secs < 0 || secs > 253402300799LL)
            return false;
        *ms = secs * 1000 + 999;   /* the whole second */
        return true;
    }
    struct tm tm = { 0 };
    int y, mo, d, h, mi, n = 0, sec = 0;
    if (sscanf(s, "%4d-%2d-%2dT%2d:%2d%n", &y, &mo, &d, &h, &mi, &n) != 5 || n != 16)
        return false;
    const char *rest = s + n;
    if (*rest == ':') {
        int m = 0;
        if (sscanf(rest, ":%2d%n", &sec, &m) != 1 || m != 3)
            return false;
        rest += m;
    }
    int offset = 0;
    if (!strcmp(rest, "Z") || !strcmp(rest, "z")) {
        offset = 0;
    } else if ((rest[0] == '+' || rest[0] == '-') && strlen(rest) == 6 && rest[3] == ':') {
        int oh, om, m = 0;
        if (sscanf(rest + 1, "%2d:%2d%n", &oh, &om, &m) != 2 || m != 5 || oh > 23 || om > 59)
            return false;
        offset = (rest[0] == '+' ? 1 : -1) * (oh * 3600 + om * 60);
    } else {
        return false;   /* a time without its zone means different things to different people */
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 || y < 1970)
        return false;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    time_t t = timegm(&tm);
    if (t == (time_t)-1)
        return false;
    *ms = ((int64_t)t - offset) * 1000 + 999;
    return true;
}

/* The walk's state: records come ordered by student, then time. */
struct pick {
    const struct batch_db_options *o;
    struct batch_db_result *res;
    struct store_record chosen;      /* the current student's choice so far */
    bool have;
    bool oom;
    struct store_record *v;          /* the choices, one per student */
    size_t n, cap;
};

/* Whether r beats the current choice under the policy (r is later). */
static bool better(const struct pick *p, const struct store_record *r)
{
    if (p->o->policy == BATCH_POLICY_LAST)
        return true;
    return r->points >= p->chosen.points;
}

static bool keep_chosen(struct pick *p)
{
    if (!p->have)
        return true;
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct store_record *v = realloc(p->v, cap * sizeof *v);
        if (!v)
            return false;
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = p->chosen;
    memset(&p->chosen, 0, sizeof p->chosen);
    p->have = false;
    return true;
}

static bool on_record(const struct store_record *r, void *arg)
{
    struct pick *p = arg;
    p->res->records++;
    if (!r->student) {
        p->res->nobody++;
        return true;
    }
    if (p->have && strcmp(p->chosen.student, r->student) != 0 && !keep_chosen(p))
        goto oom;
    if (p->have && !better(p, r))
        return true;
    struct store_record *c = store_record_copy(r);
    if (!c)
        goto oom;
    store_record_clear(&p->chosen);
    p->chosen = *c;
    free(c);
    p->have = true;
    return true;
oom:
    p->oom = true;
    return false;
}

struct names {
    struct batch_roster *roster;
    bool oom;
};

static bool on_student(const struct store_student *st, void *arg)
{
    struct names *nm = arg;
    struct batch_roster *r = nm->roster;
    if (r->n == BATCH_ROSTER_MAX_ROWS)
        return false;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct batch_roster_entry *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            goto oom;
        r->v = v;
        r->cap = cap;
    }
    struct batch_roster_entry *e = &r->v[r->n];
    memset(e, 0, sizeof *e);
    char *name = NULL;
    if (asprintf(&name, "%s%s%s", st->name, st->verified ? "" : " ",
                 st->verified ? "" : BATCH_UNVERIFIED_MARK) < 0)
        goto oom;
    e->cell[ROSTER_STUDENT] = name;
    e->cell[ROSTER_ID] = strdup(st->id);
    e->cell[ROSTER_SIS_USER] = strdup("");
    e->cell[ROSTER_SIS_LOGIN] = strdup("");
    e->cell[ROSTER_SECTION] = strdup(st->section);
    e->email = strdup(st->email);
    r->n++;   /* from here batch_roster_free releases it */
    for (int c = 0; c < ROSTER_COLUMNS; c++)
        if (!e->cell[c])
            goto oom;
    if (!e->email)
        goto oom;
    return true;
oom:
    nm->oom = true;
    return false;
}

/* Makes input i of the chosen record r, with the student's name. */
static bool add_input(struct batch_inputs *in, struct store_record *r,
                      const struct store_student *st, bool known, char *err, size_t errsz)
{
    char location[STORE_ID_SIZE + STORE_MAX_TEXT + 64];
    const char *name = known ? st->name : r->student;
    bool unverified = known && !st->verified;
    snprintf(location, sizeof location, "record %s, %s%s%s", r->id, name,
             unverified ? " " : "", unverified ? BATCH_UNVERIFIED_MARK : "");
    struct batch_input *e = batch_inputs_add(in, r->student, strlen(r->student), location, err,
                                             errsz);
    if (!e)
        return false;
    struct batch_stored *s = calloc(1, sizeof *s);
    if (!s)
        goto oom;
    e->stored = s;
    s->record_id = strdup(r->id);
    s->name = strdup(name);
    s->unverified = unverified;
    s->seed = r->seed;
    snprintf(s->sha, sizeof s->sha, "%s", r->sha256);
    s->received_ms = r->received_ms;
    /* the bytes move: the chosen record is let go right after */
    s->verdict = r->verdict;
    s->verdict_len = r->verdict_len;
    r->verdict = NULL;
    r->verdict_len = 0;
    if (!s->record_id || !s->name)
        goto oom;
    if (r->source_len > TASK_MAX_SOURCE + 1)
        r->source_len = TASK_MAX_SOURCE + 1;   /* seen as too long, as a file would be */
    e->source = r->source;
    e->source_len = r->source_len;
    r->source = NULL;
    in->held += e->source_len;
    return true;
oom:
    snprintf(err, errsz, "out of memory");
    return false;
}

bool batch_input_db_load(const struct batch_db_options *o, struct batch_inputs *in,
                         struct batch_roster *roster, struct batch_db_result *res,
                         char *err, size_t errsz)
{
    memset(in, 0, sizeof *in);
    memset(roster, 0, sizeof *roster);
    memset(res, 0, sizeof *res);
    in->dir_fd = -1;
    in->format = BATCH_FORMAT_DATABASE;
    struct store *s = NULL;
    struct store_error se;
    struct pick p = { .o = o, .res = res };
    struct names nm = { roster, false };
    bool ok = false;
    if (store_open(o->url, &s, &se) != STORE_OK) {
        snprintf(err, errsz, "%s", se.message);
        goto out;
    }
    if (!s) {
        snprintf(err, errsz, "--from-database none holds no records");
        goto out;
    }
    if (store_records_each(s, o->until_ms, on_record, &p, &se) != STORE_OK) {
        snprintf(err, errsz, "%s", se.message);
        goto out;
    }
    if (p.oom || !keep_chosen(&p)) {
        snprintf(err, errsz, "out of memory");
        goto out;
    }
    if (store_students_each(s, on_student, &nm, &se) != STORE_OK || nm.oom) {
        snprintf(err, errsz, "%s", nm.oom ? "out of memory" : se.message);
        goto out;
    }
    roster->has[ROSTER_STUDENT] = roster->has[ROSTER_ID] = roster->has[ROSTER_SECTION] = true;
    roster->has_email = true;
    for (size_t i = 0; i < p.n; i++) {
        struct store_student st;
        enum store_status found = store_student_get(s, p.v[i].student, &st, &se);
        if (found != STORE_OK && found != STORE_NOT_FOUND) {
            snprintf(err, errsz, "%s", se.message);
            goto out;
        }
        bool known = found == STORE_OK;
        bool added = add_input(in, &p.v[i], &st, known, err, errsz);
        if (added && known && !st.verified)
            res->unverified++;
        store_student_clear(&st);
        if (!added)
            goto out;
    }
    batch_inputs_sort(in);
    ok = true;
out:
    for (size_t i = 0; i < p.n; i++)
        store_record_clear(&p.v[i]);
    free(p.v);
    store_record_clear(&p.chosen);
    store_close(s);
    if (!ok) {
        batch_inputs_free(in);
        batch_roster_free(roster);
    }
    return ok;
}
