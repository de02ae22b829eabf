/* batch_input.c - the inputs of a batch: adding, refusing, sorting, reading. */
#include "batch/input/batch_input.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/task.h"

const char *batch_format_to_str(enum batch_format f)
{
    switch (f) {
    case BATCH_FORMAT_DIR: return "dir";
    case BATCH_FORMAT_CSV: return "csv";
    case BATCH_FORMAT_JSONL: return "jsonl";
    case BATCH_FORMAT_DATABASE: return "database";
    default: return "auto";
    }
}

struct batch_input *batch_inputs_add(struct batch_inputs *in, const char *id, size_t len,
                                     const char *location, char *err, size_t errsz)
{
    if (in->n >= BATCH_MAX_INPUTS) {
        snprintf(err, errsz, "more than %d inputs", BATCH_MAX_INPUTS);
        return NULL;
    }
    if (in->n == in->cap) {
        size_t cap = in->cap ? in->cap * 2 : 64;
        struct batch_input *v = realloc(in->v, cap * sizeof *v);
        if (!v)
            goto oom;
        in->v = v;
        in->cap = cap;
    }
    struct batch_input *e = &in->v[in->n];
    memset(e, 0, sizeof *e);
    const char *problem = id ? batch_id_problem(id, len) : "no id was found";
    e->id_ok = problem == NULL;
    e->id = batch_display(id ? id : "", id ? len : 0);
    e->location = batch_display(location, strlen(location));
    if (!e->id || !e->location) {
        free(e->id);
        free(e->location);
        goto oom;
    }
    in->n++;
    if (e->id_ok)
        batch_id_key(id, len, e->key);
    else if (!batch_input_refuse(e, "%s", problem))
        goto oom;
    return e;
oom:
    snprintf(err, errsz, "out of memory");
    return NULL;
}

bool batch_input_refuse(struct batch_input *e, const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return false;
    free(e->refusal);
    e->refusal = s;
    return true;
}

const char *batch_input_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Ignoring case and surrounding blanks, the rank of name in names, or -1. */
static int match_name(const char *name, size_t len, const char *want, const char *const *names)
{
    while (len && isspace((unsigned char)*name)) {
        name++;
        len--;
    }
    while (len && isspace((unsigned char)name[len - 1]))
        len--;
    if (want)
        return strlen(want) == len && !strncasecmp(name, want, len) ? 0 : -1;
    for (int i = 0; names[i]; i++)
        if (strlen(names[i]) == len && !strncasecmp(name, names[i], len))
            return i;
    return -1;
}

int batch_input_match_id(const char *name, size_t len, const char *want)
{
    static const char *const names[] = { "id", "student_id", "student", NULL };
    return match_name(name, len, want, names);
}

int batch_input_match_source(const char *name, size_t len, const char *want)
{
    static const char *const names[] = { "source", "code", "submission", NULL };
    return match_name(name, len, want, names);
}

/* By id, and among the same printed id the usable ones first: an unusable
 * id can print as a usable one ("a\n" as "a%0A"), and must not split a run
 * of duplicates that refuse_duplicates has to see side by side. */
static int compare_inputs(const void *a, const void *b)
{
    const struct batch_input *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    if (c)
        return c;
    if (x->id_ok != y->id_ok)
        return x->id_ok ? -1 : 1;
    return strcmp(x->location, y->location);
}

void batch_inputs_sort(struct batch_inputs *in)
{
    if (in->n)
        qsort(in->v, in->n, sizeof *in->v, compare_inputs);
}

/*
 * Refuses every input of an id that appears more than once: grading one
 * of them would be a guess at which student the result belongs to.
 * Needs the inputs sorted by id.
 */
static bool refuse_duplicates(struct batch_inputs *in)
{
    for (size_t i = 0; i < in->n;) {
        size_t j = i + 1;
        while (j < in->n && in->v[i].id_ok && in->v[j].id_ok && !strcmp(in->v[i].id, in->v[j].id))
            j++;
        if (j - i > 1) {
            char list[512];
            size_t len = 0;
            for (size_t k = i; k < j && len < sizeof list; k++) {
                if (k - i == 5) {
                    len += (size_t)snprintf(list + len, sizeof list - len, ", and %zu more", j - k);
                    break;
                }
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
                                        k > i ? ", " : "", in->v[k].location);
            }
            for (size_t k = i; k < j; k++) {
                in->v[k].duplicate = true;
                if (!batch_input_refuse(&in->v[k], "the id \"%s\" appears %zu times (%s): none of "
                                        "them is graded, so that no result can go to the wrong "
                                        "student; keep one and run again",
                                        in->v[i].id, j - i, list))
                    return false;
            }
        }
        i = j;
    }
    return true;
}

FILE *batch_input_spool_stdin(char *err, size_t errsz)
{
    FILE *t = tmpfile();
    char *buf = malloc(64 * 1024);
    if (!t || !buf) {
        snprintf(err, errsz, "cannot keep standard input in a temporary file: %s",
                 t ? "out of memory" : strerror(errno));
        goto fail;
    }
    size_t n;
    unsigned long long total = 0;
    while ((n = fread(buf, 1, 64 * 1024, stdin)) > 0) {
        total += n;
        if (total > BATCH_MAX_STDIN) {
            snprintf(err, errsz, "standard input holds more than %llu MiB: save the export to "
                     "a file and split it", BATCH_MAX_STDIN >> 20);
            goto fail;
        }
        if (fwrite(buf, 1, n, t) != n) {
            snprintf(err, errsz, "cannot keep standard input in a temporary file: %s",
                     strerror(errno));
            goto fail;
        }
    }
    if (ferror(stdin)) {
        snprintf(err, errsz, "cannot read standard input: %s", strerror(errno));
        goto fail;
    }
    if (fflush(t) != 0 || fseek(t, 0, SEEK_SET) != 0) {
        snprintf(err, errsz, "cannot keep standard input in a temporary file: %s",
                 strerror(errno));
        goto fail;
    }
    free(buf);
    return t;
fail:
    free(buf);
    if (t)
        fclose(t);
    return NULL;
}

/* An export without a telling extension: JSON Lines start with an object.
 * Reads the first byte that is not blank, then seeks back. */
static enum batch_format sniff_table(FILE *f)
{
    long at = ftell(f);
    int c;
    while ((c = getc(f)) != EOF && isspace(c))
        ;
    clearerr(f);
    if (at >= 0)
        fseek(f, at, SEEK_SET);
    return c == '{' ? BATCH_FORMAT_JSONL : BATCH_FORMAT_CSV;
}

static enum batch_format detect_format(const char *path, char *err, size_t errsz)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errsz, "cannot read %s: %s", path, strerror(errno));
        return BATCH_FORMAT_AUTO;
    }
    if (S_ISDIR(st.st_mode))
        return BATCH_FORMAT_DIR;
    const char *dot = strrchr(path, '.');
    if (dot && !strcasecmp(dot, ".csv"))
        return BATCH_FORMAT_CSV;
    if (dot && (!strcasecmp(dot, ".jsonl") || !strcasecmp(dot, ".ndjson") ||
                !strcasecmp(dot, ".json")))
        return BATCH_FORMAT_JSONL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errsz, "cannot read %s: %s", path, strerror(errno));
        return BATCH_FORMAT_AUTO;
    }
    enum batch_format fmt = sniff_table(f);
    fclose(f);
    return fmt;
}

/* Loads a CSV or JSON Lines export: a file, or the copy of standard input. */
static bool load_table(const struct batch_input_options *o, enum batch_format f,
                       struct batch_inputs *in, char *err, size_t errsz)
{
    bool from_stdin = o->stream != NULL;
    FILE *file = from_stdin ? o->stream : fopen(o->path, "rb");
    if (!file) {
        snprintf(err, errsz, "cannot open %s: %s", o->path, strerror(errno));
        return false;
    }
    const char *name = from_stdin ? BATCH_STDIN_NAME : batch_input_base_name(o->path);
    const char *path = from_stdin ? "standard input" : o->path;
    bool ok = f == BATCH_FORMAT_CSV ? batch_input_csv_load(o, file, name, path, in, err, errsz)
                                    : batch_input_jsonl_load(o, file, name, path, in, err, errsz);
    if (!from_stdin)
        fclose(file);
    return ok;
}

bool batch_inputs_load(const struct batch_input_options *o, struct batch_inputs *in,
                       char *err, size_t errsz)
{
    memset(in, 0, sizeof *in);
    in->dir_fd = -1;
    enum batch_format f = o->format;
    if (o->stream && f == BATCH_FORMAT_DIR) {
        snprintf(err, errsz, "standard input can hold a CSV or JSON Lines export, not a folder");
        return false;
    }
    if (f == BATCH_FORMAT_AUTO)
        f = o->stream ? sniff_table(o->stream) : detect_format(o->path, err, errsz);
    if (f == BATCH_FORMAT_AUTO)
        return false;
    in->format = f;
    bool ok = f == BATCH_FORMAT_DIR ? batch_input_dir_load(o, in, err, errsz)
                                    : load_table(o, f, in, err, errsz);
    if (ok)
        batch_inputs_sort(in);
    if (ok && !refuse_duplicates(in)) {
        snprintf(err, errsz, "out of memory");
        ok = false;
    }
    if (!ok)
        batch_inputs_free(in);
    return ok;
}

/* Opens a name in dir_fd, refusing a symbolic link; -1 with errno. */
static int open_nofollow(int dir_fd, const char *name, int flags)
{
    return openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
}

/*
 * Reads a directory input's file. Both the folder and the file are
 * opened without following symbolic links, and only a regular file is
 * read: a submission that is a link to /etc/shadow or to the
 * instructor's keys would otherwise be compiled, and its lines echoed
 * back in compile errors. O_NONBLOCK keeps a FIFO from blocking the open.
 */
static char *read_dir_input(const struct batch_inputs *in, const struct batch_input *e,
                            size_t *len, char *why, size_t whysz)
{
    int folder_fd = -1, fd = -1;
    char *buf = NULL;
    if (e->folder) {
        folder_fd = open_nofollow(in->dir_fd, e->folder, O_RDONLY | O_DIRECTORY);
        if (folder_fd < 0) {
            snprintf(why, whysz, "cannot open the folder: %s",
                     errno == ELOOP || errno == ENOTDIR ? "it is no longer a folder"
                                                        : strerror(errno));
            goto out;
        }
    }
    fd = open_nofollow(e->folder ? folder_fd : in->dir_fd, e->file, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ELOOP)
            snprintf(why, whysz, "the file is a symbolic link; submissions must be regular files");
        else
            snprintf(why, whysz, "cannot open the file: %s", strerror(errno));
        goto out;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, whysz, "not a regular file");
        goto out;
    }
    size_t max = TASK_MAX_SOURCE + 1, n = 0;
    if (!(buf = malloc(max + 1))) {
        snprintf(why, whysz, "out of memory");
        goto out;
    }
    while (n < max) {
        ssize_t got = read(fd, buf + n, max - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            snprintf(why, whysz, "cannot read the file: %s", strerror(errno));
            free(buf);
            buf = NULL;
            goto out;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    buf[n] = '\0';
    *len = n;
out:
    if (fd >= 0)
        close(fd);
    if (folder_fd >= 0)
        close(folder_fd);
    return buf;
}

char *batch_input_take_source(struct batch_inputs *in, size_t i, size_t *len,
                              char *why, size_t whysz)
{
    struct batch_input *e = &in->v[i];
    if (e->file)
        return read_dir_input(in, e, len, why, whysz);
    if (!e->source) {
        snprintf(why, whysz, "no source");
        return NULL;
    }
    char *s = e->source;
    *len = e->source_len;
    e->source = NULL;
    in->held -= e->source_len;
    return s;
}

void batch_inputs_free(struct batch_inputs *in)
{
    for (size_t i = 0; i < in->n; i++) {
        struct batch_input *e = &in->v[i];
        free(e->id);
        free(e->location);
        free(e->folder);
        free(e->file);
        free(e->source);
        free(e->refusal);
        if (e->stored) {
            free(e->stored->record_id);
            free(e->stored->name);
            free(e->stored->verdict);
            free(e->stored);
        }
    }
    free(in->v);
    if (in->dir_fd >= 0)
        close(in->dir_fd);
    memset(in, 0, sizeof *in);
    in->dir_fd = -1;
}
