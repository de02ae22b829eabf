/* batch_input_db.c - inputs from a grading server's records (batch_input_db.h). */
#include "batch/input/batch_input_db.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/task.h"
#include "gradebook/default_layout.h"
#include "store/store.h"
#include "store/store_choose.h"

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

struct names {
    struct gradebook_roster *roster;
    bool oom;
};

static bool on_student(const struct store_student *st, void *arg)
{
    struct names *nm = arg;
    if (nm->roster->n == GRADEBOOK_ROSTER_MAX_ROWS)
        return false;
    if (!gradebook_roster_add_student(nm->roster, st->id, st->name, st->verified, st->section,
                                      st->email)) {
        nm->oom = true;
        return false;
    }
    return true;
}

/* Makes input i of the chosen record r, with the student's name and
 * their attempts against the due date (lt). */
static bool add_input(struct batch_inputs *in, struct store_record *r,
                      const struct store_lateness *lt, const struct store_student *st,
                      bool known, char *err, size_t errsz)
{
    const char *name = known ? st->name : r->student;
    bool unverified = known && !st->verified;
    char *location = gradebook_record_location(r->id, name, unverified);
    if (!location)
        goto oom;
    struct batch_input *e = batch_inputs_add(in, r->student, strlen(r->student), location, err,
                                             errsz);
    free(location);
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
    s->late = (struct gradebook_late){ lt->late, lt->best_on_time, lt->best_late, r->late };
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
                         struct gradebook_roster *roster, struct batch_db_result *res,
                         char *err, size_t errsz)
{
    memset(in, 0, sizeof *in);
    memset(roster, 0, sizeof *roster);
    memset(res, 0, sizeof *res);
    in->dir_fd = -1;
    in->format = BATCH_FORMAT_DATABASE;
    struct store *s = NULL;
    struct store_error se;
    struct store_chosen p = { 0 };
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
    if (store_records_choose(s, o->task, o->until_ms, o->policy, true, &p, &se) != STORE_OK) {
        snprintf(err, errsz, "%s", se.message);
        goto out;
    }
    res->records = p.records;
    res->nobody = p.nobody;
    res->other_tasks = p.other_tasks;
    if (store_students_each(s, on_student, &nm, &se) != STORE_OK || nm.oom) {
        snprintf(err, errsz, "%s", nm.oom ? "out of memory" : se.message);
        goto out;
    }
    roster->has[ROSTER_STUDENT] = roster->has[ROSTER_ID] = roster->has[ROSTER_SECTION] = true;
    roster->has_email = true;   /* even with no student */
    for (size_t i = 0; i < p.n; i++) {
        struct store_student st;
        enum store_status found = store_student_get(s, p.v[i].student, &st, &se);
        if (found != STORE_OK && found != STORE_NOT_FOUND) {
            snprintf(err, errsz, "%s", se.message);
            goto out;
        }
        bool known = found == STORE_OK;
        bool added = add_input(in, &p.v[i], &p.lateness[i], &st, known, err, errsz);
        if (added && known && !st.verified)
            res->unverified++;
        store_student_clear(&st);
        if (!added)
            goto out;
    }
    batch_inputs_sort(in);
    ok = true;
out:
    store_chosen_clear(&p);
    store_close(s);
    if (!ok) {
        batch_inputs_free(in);
        gradebook_roster_free(roster);
    }
    return ok;
}
