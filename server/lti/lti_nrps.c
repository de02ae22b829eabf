/*
 * lti_nrps.c - the courses' rosters (Names and Role Provisioning Services
 * 2.0): a launch carrying the names and roles claim asks for its course's
 * roster in the store (store_lti_roster_ask, on the LTI thread), and this
 * thread reads it: a client-credentials token for the
 * contextmembership.readonly scope (lti_ags_token, as the scores get
 * theirs), then every page, following Link rel="next", each fetch only to
 * the registration's origins and bounded in time, the read bounded in
 * pages and bytes. The outcome goes to the store in one transaction
 * (store_lti_roster_put): the class view reads it from there, and says
 * when the platform refused.
 *
 * The ask is in the store, not in memory, so that a restart reads what
 * was asked, and several instances of a PostgreSQL class read each roster
 * once (store_lti_roster_claim); the claim moves the course's next read
 * LTI_ROSTER_REFRESH_S on, so a course is read at most that often
 * however many instructors launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "server/core/principal.h"
#include "server/identity/session.h"
#include "server/lti/lti_fetch.h"
#include "server/lti/lti_internal.h"
#include "store/store_lti.h"

#define ROSTER_ACCEPT "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
#define ROSTER_URL_SIZE 2048

/* A roster read asked for, copied from the store's walk. */
struct asked {
    char *class_id, *issuer, *client_id, *url;
    int64_t next_ms;
};

struct asked_list {
    struct asked v[LTI_ROSTER_BATCH];
    size_t n;
};

static void asked_clear(struct asked_list *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->v[i].class_id);
        free(a->v[i].issuer);
        free(a->v[i].client_id);
        free(a->v[i].url);
    }
    a->n = 0;
}

static bool take_asked(const struct store_lti_roster_due *d, void *arg)
{
    struct asked_list *a = arg;
    if (a->n == LTI_ROSTER_BATCH)
        return false;
    struct asked *x = &a->v[a->n];
    *x = (struct asked){ strdup(d->class_id), strdup(d->issuer), strdup(d->client_id),
                         strdup(d->url), d->next_ms };
    if (x->class_id && x->issuer && x->client_id && x->url) {
        a->n++;
    } else {
        free(x->class_id);
        free(x->issuer);
        free(x->client_id);
        free(x->url);
    }
    return true;
}

/* The members a read found: copies (the pages' JSON is freed page by page). */
struct found {
    struct store_lti_roster_member *v;
    char **text;                /* each member's sub and name, to free */
    size_t n, cap;
    bool oom;
};

static void found_add(struct found *f, const char *sub, const char *name, bool learner)
{
    if (f->oom)
        return;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 64;
        struct store_lti_roster_member *v = realloc(f->v, cap * sizeof *v);
        if (v)
            f->v = v;
        char **t = v ? realloc(f->text, cap * 2 * sizeof *t) : NULL;
        if (!t) {
            f->oom = true;
            return;
        }
        f->text = t;
        f->cap = cap;
    }
    char *s = strdup(sub), *nm = strdup(name);
    if (!s || !nm) {
        free(s);
        free(nm);
        f->oom = true;
        return;
    }
    f->text[2 * f->n] = s;
    f->text[2 * f->n + 1] = nm;
    f->v[f->n++] = (struct store_lti_roster_member){ s, nm, learner };
}

static void found_free(struct found *f)
{
    for (size_t i = 0; i < 2 * f->n; i++)
        free(f->text[i]);
    free(f->text);
    free(f->v);
    *f = (struct found){ 0 };
}

/* The reader's store calls, each on the records' writer (lti_store_call). */
enum roster_op { ROSTER_DUE, ROSTER_CLAIM, ROSTER_PUT };

struct roster_call {
    enum roster_op op;
    struct asked_list *asked;
    const struct asked *one;
    int64_t next_ms;
    bool claimed;
    enum store_lti_roster_state state;
    const char *message;
    const struct found *found;
    enum store_status st;
    struct store_error e;
};

static void roster_run(struct store *s, void *arg)
{
    struct roster_call *c = arg;
    switch (c->op) {
    case ROSTER_DUE:
        c->st = store_lti_roster_due(s, store_now_ms(), LTI_ROSTER_BATCH, take_asked, c->asked,
                                     &c->e);
        break;
    case ROSTER_CLAIM:
        c->st = store_lti_roster_claim(s, c->one->class_id, c->one->next_ms, c->next_ms,
                                       &c->claimed, &c->e);
        break;
    case ROSTER_PUT:
        c->st = store_lti_roster_put(s, c->one->class_id, c->one->issuer, c->state, c->message,
                                     c->found ? c->found->v : NULL, c->found ? c->found->n : 0,
                                     &c->e);
        break;
    }
}

static enum store_status roster_call(struct lti *l, struct roster_call *c)
{
    c->st = STORE_UNAVAILABLE;
    if (!lti_store_call(l, true, roster_run, c))
        return STORE_UNAVAILABLE;
    return c->st;
}

static bool stopping(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    bool s = l->stopping;
    pthread_mutex_unlock(&l->lock);
    return s;
}

/* A member's name as the roster gives it (name, else given and family
 * names), made fit to show; "" when none. */
static void member_name(const json_t *m, char *out, size_t n)
{
    const char *name = json_string_value(json_object_get(m, "name"));
    const char *given = json_string_value(json_object_get(m, "given_name"));
    const char *family = json_string_value(json_object_get(m, "family_name"));
    char joined[2 * PRINCIPAL_NAME_MAX];
    if (name && *name)
        snprintf(joined, sizeof joined, "%.*s", PRINCIPAL_NAME_MAX, name);
    else
        snprintf(joined, sizeof joined, "%.*s%s%.*s", PRINCIPAL_NAME_MAX, given ? given : "",
                 given && *given && family && *family ? " " : "", PRINCIPAL_NAME_MAX,
                 family ? family : "");
    session_clean_name(joined, out, n);
}

/* One page's members into f; false when the page is no roster. */
static bool page_members(const char *text, size_t len, struct found *f)
{
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, NULL);
    json_t *members = json_object_get(doc, "members");
    if (!json_is_array(members)) {
        json_decref(doc);
        return false;
    }
    size_t i;
    json_t *m;
    json_array_foreach(members, i, m) {
        const char *sub;
        bool learner;
        if (!lti_check_roster_member(m, &sub, &learner) || strlen(sub) > STORE_MAX_TEXT)
            continue;   /* no one the tool could know */
        char name[PRINCIPAL_NAME_MAX];
        member_name(m, name, sizeof name);
        found_add(f, sub, name, learner);
    }
    json_decref(doc);
    return true;
}

/* Reads the roster at x->url for registration i into f: the state of the
 * read, with its sentence in msg. */
static enum store_lti_roster_state read_roster(struct lti *l, size_t i, const struct asked *x,
                                               struct found *f, char *msg, size_t msgsz)
{
    const struct lti_platform *p = &l->cfg.p[i];
    char err[300];
    const char *token = lti_ags_token(l, i, LTI_NRPS_SCOPE, &l->roster_tokens[i], err,
                                         sizeof err);
    if (!token) {
        snprintf(msg, msgsz, "The platform gave no token for the roster (%s).", err);
        return STORE_ROSTER_REFUSED;
    }
    char *url = malloc(ROSTER_URL_SIZE), *next = malloc(ROSTER_URL_SIZE);
    if (!url || !next) {
        free(url);
        free(next);
        snprintf(msg, msgsz, "Out of memory.");
        return STORE_ROSTER_REFUSED;
    }
    snprintf(url, ROSTER_URL_SIZE, "%s", x->url);
    size_t bytes = 0;
    enum store_lti_roster_state out = STORE_ROSTER_READ;
    msg[0] = '\0';
    for (unsigned page = 0;; page++) {
        /* a page refused after the first: what came before is kept, in part */
        enum store_lti_roster_state fail = page ? STORE_ROSTER_PARTIAL : STORE_ROSTER_REFUSED;
        if (page == LTI_ROSTER_MAX_PAGES) {
            snprintf(msg, msgsz, "The roster has more than %u pages: the first %u were read.",
                     LTI_ROSTER_MAX_PAGES, LTI_ROSTER_MAX_PAGES);
            out = STORE_ROSTER_PARTIAL;
            break;
        }
        if (page && stopping(l)) {
            snprintf(msg, msgsz, "The server stopped during the read.");
            out = STORE_ROSTER_PARTIAL;
            break;
        }
        if (!lti_config_allows(p, url)) {
            char origin[LTI_ORIGIN_SIZE];
            if (!lti_config_url_origin(url, origin, sizeof origin))
                snprintf(origin, sizeof origin, "(none)");
            snprintf(msg, msgsz, "The roster's %s page is at %.200s, not a host of the "
                     "registration's (docs/LTI.md: service_origins): not read.",
                     page ? "next" : "first", origin);
            out = fail;
            break;
        }
        char *text = NULL;
        long status = 0;
        bool next_unread = false;
        if (!lti_fetch_page(p, url, token, ROSTER_ACCEPT, LTI_ROSTER_MAX_BYTES - bytes,
                            LTI_ROSTER_PAGE_TIMEOUT_MS, &text, &status, next, ROSTER_URL_SIZE,
                            &next_unread, err, sizeof err)) {
            snprintf(msg, msgsz, "The roster's page %u could not be read (%s%s).", page + 1,
                     err, strstr(err, "size bound") ? ": the roster is over its bound" : "");
            out = fail;
            break;
        }
        if (status == 401) {
            free(l->roster_tokens[i].token);   /* ended by the platform: asked again next time */
            l->roster_tokens[i].token = NULL;
        }
        size_t len = strlen(text);
        bool roster = status == 200 && page_members(text, len, f);
        free(text);
        if (status != 200 || !roster) {
            if (status != 200)
                snprintf(msg, msgsz, "The platform answered %ld to the roster's page %u.",
                         status, page + 1);
            else
                snprintf(msg, msgsz, "The roster's page %u is not a membership container.",
                         page + 1);
            out = fail;
            break;
        }
        bytes += len;
        if (f->oom) {
            snprintf(msg, msgsz, "Out of memory.");
            out = STORE_ROSTER_REFUSED;
            break;
        }
        if (next_unread) {
            snprintf(msg, msgsz, "The roster's page %u links a next page this tool cannot "
                     "follow (its address is over %d bytes).", page + 1, ROSTER_URL_SIZE - 1);
            out = STORE_ROSTER_PARTIAL;
            break;
        }
        if (!next[0])
            break;
        snprintf(url, ROSTER_URL_SIZE, "%s", next);
    }
    free(url);
    free(next);
    return out;
}

/* One pass over the rosters asked for and due. */
static void read_due(struct lti *l)
{
    struct asked_list a = { .n = 0 };
    struct roster_call dc = { .op = ROSTER_DUE, .asked = &a };
    if (roster_call(l, &dc) != STORE_OK) {
        asked_clear(&a);
        return;
    }
    for (size_t k = 0; k < a.n && !stopping(l); k++) {
        const struct asked *x = &a.v[k];
        struct roster_call cc = { .op = ROSTER_CLAIM, .one = x,
                                  .next_ms = store_now_ms() +
                                             (int64_t)LTI_ROSTER_REFRESH_S * 1000 };
        if (roster_call(l, &cc) != STORE_OK || !cc.claimed)
            continue;   /* another instance reads it */
        const struct lti_platform *p = lti_config_find(&l->cfg, x->issuer, x->client_id);
        struct found f = { 0 };
        char msg[600];
        enum store_lti_roster_state state = STORE_ROSTER_REFUSED;
        if (!p)
            snprintf(msg, sizeof msg, "The platform is no longer registered.");
        else
            state = read_roster(l, (size_t)(p - l->cfg.p), x, &f, msg, sizeof msg);
        struct roster_call pc = { .op = ROSTER_PUT, .one = x, .state = state, .message = msg,
                                  .found = &f };
        if (roster_call(l, &pc) != STORE_OK)
            fprintf(stderr, "butterfly-server: LTI roster of class %s not kept: %s\n",
                    x->class_id, pc.e.message);
        if (state != STORE_ROSTER_READ)
            fprintf(stderr, "butterfly-server: LTI roster of class %s (%s): %s\n", x->class_id,
                    p ? p->name : x->issuer, msg);
        found_free(&f);
    }
    asked_clear(&a);
}

static void *roster_thread(void *arg)
{
    struct lti *l = arg;
    pthread_mutex_lock(&l->lock);
    while (!l->stopping) {
        l->roster_woken = false;
        pthread_mutex_unlock(&l->lock);
        read_due(l);
        pthread_mutex_lock(&l->lock);
        if (l->stopping || l->roster_woken)
            continue;
        /* woken by a launch's ask; the poll finds another instance's, and
         * an ask that waited for its course's next_ms */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += (long)(LTI_ROSTER_POLL_MS % 1000u) * 1000000L;
        until.tv_sec += LTI_ROSTER_POLL_MS / 1000u + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_cond_timedwait(&l->roster_wake, &l->lock, &until);
    }
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

bool lti_nrps_start(struct lti *l)
{
    l->roster_started = pthread_create(&l->roster, NULL, roster_thread, l) == 0;
    return l->roster_started;
}

void lti_nrps_wake(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    l->roster_woken = true;
    pthread_cond_broadcast(&l->roster_wake);
    pthread_mutex_unlock(&l->lock);
}

void lti_nrps_stop(struct lti *l)
{
    pthread_mutex_lock(&l->lock);
    l->stopping = true;
    pthread_cond_broadcast(&l->roster_wake);
    pthread_mutex_unlock(&l->lock);
    if (l->roster_started)
        pthread_join(l->roster, NULL);
    l->roster_started = false;
    for (size_t i = 0; i < LTI_MAX_PLATFORMS; i++) {
        free(l->roster_tokens[i].token);
        l->roster_tokens[i].token = NULL;
    }
}
