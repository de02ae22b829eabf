/*
 * admin_main.c - butterfly-admin: the class and its records, from the
 * command line (docs/man/butterfly-admin.1).
 *
 * It opens the store the server uses, found the same way
 * (store_location.h), and runs one command on it. Every command is one
 * transaction or a read, so it may run while servers use the store.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "admin/admin_lti.h"
#include "batch/input/csv.h"
#include "batch/reports/batch_roster.h"
#include "common/config.h"
#include "common/defaults.h"
#include "common/due/iso8601.h"
#include "common/parse_num.h"
#include "gradebook/csv_write.h"
#include "gradebook/student_id.h"
#include "store/store.h"
#include "store/store_location.h"

/* The exit statuses, as the manual page lists them. */
enum admin_exit {
    ADMIN_EXIT_OK = 0,
    ADMIN_EXIT_FAILED = 1,      /* the store failed, or no such student */
    ADMIN_EXIT_USAGE = 64,
};

static void usage(FILE *out)
{
    fprintf(out,
        "usage: butterfly-admin [options] COMMAND [ARGS]\n"
        "Manages the class and the records the grading server keeps.\n"
        "\n"
        "commands:\n"
        "  class import ROSTER.csv  add the roster's students, or update their names,\n"
        "                        sections and emails (columns: id or ID, SIS User ID or\n"
        "                        SIS Login ID; name or Student; Section; Email)\n"
        "  class due [TIME]      the class's due date (2026-12-01T23:59:00Z or with an\n"
        "                        offset, +01:00): a record received after it is marked late\n"
        "                        (an LTI launch's due_at wins for its students); without\n"
        "                        TIME, print it\n"
        "      --clear           no due date from now on\n"
        "  links                 print id,name,link as CSV (a mail merge): a personal link\n"
        "                        PUBLIC_URL/?k=TOKEN for each student who has none yet\n"
        "      --renew STUDENT   a new link for one student; the old one stops working\n"
        "      --all             new links for every student; all old ones stop working\n"
        "  token                 a new instructor token (the old one stops working) and\n"
        "                        the class view's address PUBLIC_URL/class?token=TOKEN\n"
        "  backup FILE           copy a SQLite store while servers use it (SQLite's online\n"
        "                        backup; FILE must not exist)\n"
        "  export STUDENT        print all of one student's records as JSON\n"
        "  forget STUDENT        delete one student and all their records\n"
        "  purge --retention-days N  delete the records older than N days (1 to %u)\n"
        "  lti rotate-key        a new LTI key pair signs from now on; the old one stays\n"
        "                        published for an overlap (docs/LTI.md)\n"
        "  lti registration-url  print a one-time address PUBLIC_URL/lti/register?token=...\n"
        "                        for a platform's Dynamic Registration (one registration,\n"
        "                        within an hour)\n"
        "\n"
        "options:\n"
        "      --database URL    the store: sqlite:PATH, postgresql://... (env\n"
        "                        BUTTERFLY_DATABASE; default: %s in the state folder)\n"
        "      --state-dir DIR   the state folder (env BUTTERFLY_STATE_DIR, else\n"
        "                        $STATE_DIRECTORY, else $XDG_STATE_HOME/%s,\n"
        "                        else ~/.local/state/%s)\n"
        "      --public-url URL  the server's address as students reach it, for links\n"
        "                        (env BUTTERFLY_PUBLIC_URL; default: the address the\n"
        "                        server announced at its start, else http://%s:%u)\n"
        "      --version, --help\n"
        "\n"
        "exit status: 0 done, 1 failed (see the message), 64 usage\n",
        MAX_RETENTION_DAYS, STORE_FILE_NAME, DEFAULT_STATE_SUBDIR, DEFAULT_STATE_SUBDIR,
        DEFAULT_BIND, DEFAULT_PORT);
}

/* Writes s to f with every control character and every byte that is not
 * UTF-8 as %XX (gradebook_display): a roster's or a store's text cannot
 * send an escape sequence to the terminal that shows it. */
static void put_text(FILE *f, const char *s)
{
    char *d = gradebook_display(s, strlen(s));
    fputs(d ? d : "?", f);
    free(d);
}

static int fail(const struct store_error *err)
{
    fputs("butterfly-admin: ", stderr);
    put_text(stderr, err->message);
    fputc('\n', stderr);
    return ADMIN_EXIT_FAILED;
}

/* A message of ours with the text of the roster or of the store in it:
 * escaped as put_text does. */
static void say(const char *text)
{
    fputs("butterfly-admin: ", stderr);
    put_text(stderr, text);
    fputc('\n', stderr);
}

/* ---- class due ------------------------------------------------------------------- */

/* Prints a due date as UTC ("none" for 0). */
static void put_due(int64_t due_ms)
{
    if (due_ms <= 0) {
        printf("due: none\n");
        return;
    }
    time_t t = (time_t)(due_ms / 1000);
    struct tm tm;
    char stamp[64] = "?";
    if (gmtime_r(&t, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    printf("due: %s\n", stamp);
}

/* Sets (set: to due_ms, 0 clears) or prints the class's due date. The
 * servers read it at each insert (store_class_due_set): no restart. */
static int cmd_class_due(struct store *s, bool set, int64_t due_ms)
{
    struct store_error err;
    if (set && store_class_due_set(s, due_ms, &err) != STORE_OK)
        return fail(&err);
    if (store_class_due_get(s, &due_ms, &err) != STORE_OK)
        return fail(&err);
    put_due(due_ms);
    return ADMIN_EXIT_OK;
}

/* ---- class import ---------------------------------------------------------------- */

/* The roster column that holds the student's id: ours is "id" (Canvas's
 * ID), then Canvas's other ids. */
static int id_column(const struct gradebook_roster *r)
{
    static const enum gradebook_roster_column order[] = { ROSTER_ID, ROSTER_SIS_USER,
                                                      ROSTER_SIS_LOGIN };
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (r->has[order[i]])
            return (int)order[i];
    return -1;
}

/* Reads the whole roster, checked (batch_roster_load: UTF-8, no control
 * character, bounded, each id once), then puts every student in one
 * transaction: a roster refused anywhere leaves the class as it was. */
static int cmd_class_import(struct store *s, const char *path)
{
    struct gradebook_roster r;
    char why[1024];
    struct store_error err;
    if (!batch_roster_load(path, &r, why, sizeof why)) {
        size_t len = strlen(why);
        snprintf(why + len, sizeof why - len, "; nothing was imported");
        say(why);
        return ADMIN_EXIT_FAILED;
    }
    int key = id_column(&r);
    size_t added = 0, updated = 0, skipped = 0, n = 0, at = 0;
    int rc = ADMIN_EXIT_OK;
    struct store_student *v = r.n ? calloc(r.n, sizeof *v) : NULL;
    size_t *entry = r.n ? calloc(r.n, sizeof *entry) : NULL;   /* v[i] is r.v[entry[i]] */
    if (r.n && (!v || !entry)) {
        say("out of memory");
        rc = ADMIN_EXIT_FAILED;
        goto out;
    }
    for (size_t i = 0; i < r.n; i++) {
        const struct gradebook_roster_entry *e = &r.v[i];
        const char *id = e->cell[key];
        if (!*id) {
            skipped++;
            continue;
        }
        entry[n] = i;
        v[n++] = (struct store_student){
            .id = (char *)id,
            .name = (char *)(*e->cell[ROSTER_STUDENT] ? e->cell[ROSTER_STUDENT] : id),
            .section = e->cell[ROSTER_SECTION],
            .email = e->email,
            .verified = true,
        };
    }
    if (store_students_put(s, v, n, &added, &updated, &at, &err) != STORE_OK) {
        char line[1400];
        if (at < n)
            snprintf(line, sizeof line, "%s:%lu (%s): %s; nothing was imported", path,
                     r.v[entry[at]].line, v[at].id, err.message);
        else
            snprintf(line, sizeof line, "%s: %s; nothing was imported", path, err.message);
        say(line);
        rc = ADMIN_EXIT_FAILED;
        goto out;
    }
    printf("class: %zu students added, %zu updated", added, updated);
    if (skipped)
        printf(", %zu rows without an id skipped", skipped);
    printf(" (ids from the roster's %s column)\n",
           gradebook_roster_column_to_str((enum gradebook_roster_column)key));
out:
    free(v);
    free(entry);
    gradebook_roster_free(&r);
    return rc;
}

/* ---- links ------------------------------------------------------------------------ */

struct links {
    struct store *s;
    const char *base;
    bool all;
    size_t printed, kept, open_lab;
    struct store_error err;
    bool failed;
    /* the ids to give links to, gathered first: a write inside the walk
     * would wait for the walk's own read on SQLite */
    char **ids;
    size_t n, cap;
};

static bool gather(const struct store_student *st, void *arg)
{
    struct links *l = arg;
    if (!st->verified) {
        l->open_lab++;
        return true;
    }
    if (st->has_token && !l->all) {
        l->kept++;
        return true;
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        char **v = realloc(l->ids, cap * sizeof *v);
        if (!v)
            return false;
        l->ids = v;
        l->cap = cap;
    }
    if (!(l->ids[l->n] = strdup(st->id)))
        return false;
    l->n++;
    return true;
}

/* Gives one student a new token and prints their row. */
static bool print_link(struct links *l, const char *id)
{
    char token[STORE_TOKEN_SIZE];
    struct store_student st;
    if (store_student_get(l->s, id, &st, &l->err) != STORE_OK
        || store_student_new_token(l->s, id, token, &l->err) != STORE_OK) {
        store_student_clear(&st);
        return false;
    }
    size_t n = strlen(l->base) + sizeof "/?k=" + STORE_TOKEN_SIZE;
    char *link = malloc(n);
    if (!link) {
        store_student_clear(&st);
        return false;
    }
    snprintf(link, n, "%s/?k=%s", l->base, token);
    /* shown as put_text shows text, and guarded as a gradebook's cells:
     * the file goes to a mail merge in a spreadsheet */
    char *shown_id = gradebook_display(st.id, strlen(st.id));
    char *name = gradebook_display(st.name, strlen(st.name));
    const char *cells[] = { shown_id ? shown_id : "?", name ? name : "?", link };
    csv_write_row_lf(stdout, cells, 3, CSV_GUARD_ALL);
    free(shown_id);
    free(name);
    free(link);
    store_student_clear(&st);
    l->printed++;
    return true;
}

static int cmd_links(struct store *s, const char *base, const char *renew, bool all)
{
    struct links l = { .s = s, .base = base, .all = all };
    int rc = ADMIN_EXIT_OK;
    static const char *const header[] = { "id", "name", "link" };
    if (renew) {
        struct store_student st;
        if (store_student_get(s, renew, &st, &l.err) != STORE_OK)
            return fail(&l.err);
        store_student_clear(&st);
        csv_write_row_lf(stdout, header, 3, 0);
        return print_link(&l, renew) ? ADMIN_EXIT_OK : fail(&l.err);
    }
    if (store_students_each(s, gather, &l, &l.err) != STORE_OK) {
        rc = fail(&l.err);
        goto out;
    }
    csv_write_row_lf(stdout, header, 3, 0);
    for (size_t i = 0; i < l.n; i++)
        if (!print_link(&l, l.ids[i])) {
            rc = fail(&l.err);
            goto out;
        }
    if (l.kept)
        fprintf(stderr, "butterfly-admin: %zu students have a link already, not shown "
                        "(tokens are kept hashed): --renew STUDENT or --all makes new ones\n",
                l.kept);
    if (l.printed + l.kept == 0)
        fprintf(stderr, "butterfly-admin: no students: import a roster first "
                        "(butterfly-admin class import ROSTER.csv)\n");
out:
    for (size_t i = 0; i < l.n; i++)
        free(l.ids[i]);
    free(l.ids);
    return rc;
}

/* ---- the rest ---------------------------------------------------------------------- */

static int cmd_token(struct store *s, const char *base)
{
    char token[STORE_TOKEN_SIZE];
    struct store_error err;
    if (store_instructor_new_token(s, token, &err) != STORE_OK)
        return fail(&err);
    printf("instructor token: %s\n", token);
    printf("class view: %s/class?token=%s\n", base, token);
    printf("the old token no longer works\n");
    return ADMIN_EXIT_OK;
}

static int cmd_backup(struct store *s, const char *path)
{
    struct store_error err;
    if (store_backup(s, path, &err) != STORE_OK)
        return fail(&err);
    fputs("backup: ", stdout);
    put_text(stdout, path);
    fputc('\n', stdout);
    return ADMIN_EXIT_OK;
}

static int cmd_export(struct store *s, const char *id)
{
    struct store_error err;
    json_t *j = NULL;
    if (store_student_export(s, id, &j, &err) != STORE_OK)
        return fail(&err);
    int r = json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(j);
    if (r != 0 || fputc('\n', stdout) == EOF || fflush(stdout) != 0) {
        fprintf(stderr, "butterfly-admin: cannot write the export: %s\n", strerror(errno));
        return ADMIN_EXIT_FAILED;
    }
    return ADMIN_EXIT_OK;
}

static int cmd_forget(struct store *s, const char *id)
{
    struct store_error err;
    uint64_t n = 0;
    if (store_student_forget(s, id, &n, &err) != STORE_OK)
        return fail(&err);
    fputs("forgot ", stdout);
    put_text(stdout, id);
    printf(": the student and %llu records deleted\n", (unsigned long long)n);
    return ADMIN_EXIT_OK;
}

static int cmd_purge(struct store *s, unsigned days)
{
    struct store_error err;
    uint64_t n = 0;
    if (store_retention_purge(s, days, &n, &err) != STORE_OK)
        return fail(&err);
    printf("purge: %llu records older than %u days deleted\n", (unsigned long long)n, days);
    return ADMIN_EXIT_OK;
}

/* The address in links and the class view's, without a trailing slash,
 * query or fragment. */
static bool public_base(const char *given, char *out, size_t n)
{
    if (strncmp(given, "http://", 7) && strncmp(given, "https://", 8))
        return false;
    size_t len = strcspn(given, "?#");
    if (len >= n)
        return false;
    snprintf(out, n, "%.*s", (int)len, given);
    while (len > 0 && out[len - 1] == '/')
        out[--len] = '\0';
    return true;
}

/* Whether base's host is a wildcard (0.0.0.0, [::]): what a server bound
 * to every address and given no --public-url announces, which no student
 * can open. */
static bool wildcard_host(const char *base)
{
    const char *h = strstr(base, "://");
    h = h ? h + 3 : base;
    return !strncmp(h, "0.0.0.0", 7) || !strncmp(h, "[::]", 4);
}

/*
 * The address for links and token when --public-url is not given: the one
 * the server announced at its start (store_announced_url_get), else the
 * default. Says on stderr which it used (stdout stays the CSV); false,
 * said why, when the announced one is a wildcard no student can open.
 */
static bool announced_base(struct store *s, char *out, size_t n)
{
    struct store_error err;
    int64_t when_ms = 0;
    char got[STORE_MAX_TEXT + 1];
    enum store_status st = store_announced_url_get(s, got, sizeof got, &when_ms, &err);
    if (st != STORE_OK || !public_base(got, out, n)) {
        snprintf(out, n, "http://%s:%u", DEFAULT_BIND, DEFAULT_PORT);
        if (st == STORE_OK || st == STORE_NOT_FOUND)
            fputs("butterfly-admin: no server has announced its address in this store yet: ",
                  stderr);
        else
            fprintf(stderr, "butterfly-admin: the address the server announced cannot be "
                            "read (%s): ", store_status_to_str(st));
        fputs("links use the default ", stderr);
        put_text(stderr, out);
        fputs(" (--public-url URL gives the one students reach)\n", stderr);
        return true;
    }
    if (wildcard_host(out)) {
        fputs("butterfly-admin: the server announced ", stderr);
        put_text(stderr, out);
        fputs(", every address of its machine, which no student can open: give "
              "--public-url http://THIS-MACHINE:PORT (or start the server with "
              "--public-url)\n", stderr);
        return false;
    }
    char stamp[32] = "";
    time_t t = (time_t)(when_ms / 1000);
    struct tm tm;
    if (gmtime_r(&t, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M UTC", &tm);
    fputs("butterfly-admin: using the address the server announced at its start (", stderr);
    fputs(stamp, stderr);
    fputs("): ", stderr);
    put_text(stderr, out);
    fputs(" (--public-url URL gives another)\n", stderr);
    return true;
}

int main(int argc, char **argv)
{
    enum { OPT_DATABASE = 256, OPT_STATE_DIR, OPT_PUBLIC_URL, OPT_RENEW, OPT_ALL, OPT_RETENTION,
           OPT_CLEAR, OPT_VERSION };
    static const struct option longopts[] = {
        { "database", required_argument, NULL, OPT_DATABASE },
        { "state-dir", required_argument, NULL, OPT_STATE_DIR },
        { "public-url", required_argument, NULL, OPT_PUBLIC_URL },
        { "renew", required_argument, NULL, OPT_RENEW },
        { "all", no_argument, NULL, OPT_ALL },
        { "retention-days", required_argument, NULL, OPT_RETENTION },
        { "clear", no_argument, NULL, OPT_CLEAR },
        { "version", no_argument, NULL, OPT_VERSION },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *database = getenv("BUTTERFLY_DATABASE"), *state_dir = NULL;
    const char *public_url = getenv("BUTTERFLY_PUBLIC_URL"), *renew = NULL;
    bool all = false, retention_given = false, clear = false;
    unsigned retention = 0;
    uint64_t x;
    int c;
    char why[512];
    if (database && !*database)
        database = NULL;
    if (public_url && !*public_url)
        public_url = NULL;
    /* options anywhere: before the command or after it */
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_DATABASE: database = optarg; break;
        case OPT_STATE_DIR: state_dir = optarg; break;
        case OPT_PUBLIC_URL: public_url = optarg; break;
        case OPT_RENEW: renew = optarg; break;
        case OPT_ALL: all = true; break;
        case OPT_CLEAR: clear = true; break;
        case OPT_RETENTION:
            if (!parse_u64(optarg, MAX_RETENTION_DAYS, &x) || x == 0) {
                snprintf(why, sizeof why, "bad --retention-days '%.64s' (1..%u)", optarg,
                         MAX_RETENTION_DAYS);
                say(why);
                return ADMIN_EXIT_USAGE;
            }
            retention = (unsigned)x;
            retention_given = true;
            break;
        case OPT_VERSION: printf("butterfly-admin %s\n", BUTTERFLY_VERSION); return 0;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return ADMIN_EXIT_USAGE;
        }
    }
    int nargs = argc - optind;
    char **args = argv + optind;
    const char *cmd = nargs > 0 ? args[0] : NULL;
    char base[2048];
    if (!cmd) {
        usage(stderr);
        return ADMIN_EXIT_USAGE;
    }
    if (public_url && !public_base(public_url, base, sizeof base)) {
        snprintf(why, sizeof why, "bad --public-url '%.200s' (http://... or https://...)",
                 public_url);
        say(why);
        return ADMIN_EXIT_USAGE;
    }
    /* the command's shape, before the store is opened */
    bool ok;
    bool due = !strcmp(cmd, "class") && nargs >= 2 && !strcmp(args[1], "due");
    int64_t due_ms = 0;
    if (due && nargs == 3 && !clear && (!iso8601_ms(args[2], &due_ms) || due_ms <= 0)) {
        snprintf(why, sizeof why, "bad due date '%.64s' (2026-12-01T23:59:00Z, or with an "
                 "offset: 2026-12-01T23:59:00+01:00)", args[2]);
        say(why);
        return ADMIN_EXIT_USAGE;
    }
    if (due)
        ok = nargs == 2 || (nargs == 3 && !clear);
    else if (!strcmp(cmd, "class"))
        ok = nargs == 3 && !strcmp(args[1], "import");
    else if (!strcmp(cmd, "links"))
        ok = nargs == 1 && !(renew && all);
    else if (!strcmp(cmd, "token"))
        ok = nargs == 1;
    else if (!strcmp(cmd, "backup") || !strcmp(cmd, "export") || !strcmp(cmd, "forget"))
        ok = nargs == 2;
    else if (!strcmp(cmd, "purge"))
        ok = nargs == 1 && retention_given;
    else if (!strcmp(cmd, "lti"))
        ok = admin_lti_shape(nargs, args);
    else
        ok = false;
    if (!ok || ((renew || all) && strcmp(cmd, "links")) || (clear && !due)
        || (retention_given && strcmp(cmd, "purge"))) {
        fprintf(stderr, "butterfly-admin: bad command line (see butterfly-admin --help)\n");
        return ADMIN_EXIT_USAGE;
    }

    struct store_location loc;
    if (!store_location_resolve(database, state_dir, &loc, why, sizeof why)) {
        say(why);
        return ADMIN_EXIT_USAGE;
    }
    if (!strcmp(loc.url, "none")) {
        fprintf(stderr, "butterfly-admin: --database none keeps nothing to manage\n");
        return ADMIN_EXIT_USAGE;
    }
    struct store *s = NULL;
    struct store_error err;
    if (store_open(loc.url, &s, &err) != STORE_OK)
        return fail(&err);
    int rc;
    /* the commands that print addresses: the lab's links, the instructor's
     * token, a Dynamic Registration address (not rotate-key) */
    bool needs_base = !strcmp(cmd, "links") || !strcmp(cmd, "token") ||
                      (!strcmp(cmd, "lti") && nargs > 1 && !strcmp(args[1], "registration-url"));
    if (needs_base && public_url) {
        fputs("butterfly-admin: using --public-url: ", stderr);
        put_text(stderr, base);
        fputc('\n', stderr);
    } else if (needs_base && !announced_base(s, base, sizeof base)) {
        store_close(s);
        return ADMIN_EXIT_FAILED;
    }
    if (due)
        rc = cmd_class_due(s, nargs == 3 || clear, due_ms);
    else if (!strcmp(cmd, "class"))
        rc = cmd_class_import(s, args[2]);
    else if (!strcmp(cmd, "links"))
        rc = cmd_links(s, base, renew, all);
    else if (!strcmp(cmd, "token"))
        rc = cmd_token(s, base);
    else if (!strcmp(cmd, "backup"))
        rc = cmd_backup(s, args[1]);
    else if (!strcmp(cmd, "export"))
        rc = cmd_export(s, args[1]);
    else if (!strcmp(cmd, "forget"))
        rc = cmd_forget(s, args[1]);
    else if (!strcmp(cmd, "lti"))
        rc = admin_lti(s, base, nargs, args);
    else
        rc = cmd_purge(s, retention);
    if (fflush(stdout) != 0 && rc == ADMIN_EXIT_OK) {
        fprintf(stderr, "butterfly-admin: cannot write: %s\n", strerror(errno));
        rc = ADMIN_EXIT_FAILED;
    }
    store_close(s);
    return rc;
}
