/* csv.c - a small RFC 4180 reader (the writer: gradebook/csv_write.c). */
#include "batch/input/csv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

struct csv_reader {
    FILE *f;
    char delimiter;
    size_t max_field, max_fields;
    struct csv_field *fields;    /* max_fields entries, buffers reused */
    size_t *caps;                /* allocated bytes of each field's buffer */
    unsigned long line;          /* line of the next character */
    int back[3];                 /* characters read ahead, last first */
    int nback;
    bool started, done;
};

const char *csv_status_to_str(enum csv_status s)
{
    switch (s) {
    case CSV_RECORD: return "record";
    case CSV_UNCLOSED: return "unclosed";
    case CSV_EOF: return "eof";
    case CSV_IO_ERROR: return "io_error";
    }
    return "unknown";
}

struct csv_reader *csv_reader_new(FILE *f, char delimiter, size_t max_field, size_t max_fields)
{
    if (max_field < 1 || max_fields < 1 || delimiter == '"' || delimiter == '\r' ||
        delimiter == '\n' || delimiter == '\0')
        return NULL;
    struct csv_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->fields = calloc(max_fields, sizeof *r->fields);
    r->caps = calloc(max_fields, sizeof *r->caps);
    if (!r->fields || !r->caps) {
        csv_reader_free(r);
        return NULL;
    }
    r->f = f;
    r->delimiter = delimiter;
    r->max_field = max_field;
    r->max_fields = max_fields;
    r->line = 1;
    return r;
}

void csv_reader_free(struct csv_reader *r)
{
    if (!r)
        return;
    if (r->fields)
        for (size_t i = 0; i < r->max_fields; i++)
            free(r->fields[i].data);
    free(r->fields);
    free(r->caps);
    free(r);
}

/* The next character, after those read ahead; ungetc promises only one. */
static int next_char(struct csv_reader *r)
{
    return r->nback ? r->back[--r->nback] : getc(r->f);
}

static void put_back(struct csv_reader *r, int c)
{
    if (c != EOF && r->nback < 3)
        r->back[r->nback++] = c;
}

/* Skips a UTF-8 byte-order mark at the start: spreadsheets write one. */
static void skip_bom(struct csv_reader *r)
{
    static const unsigned char bom[3] = { 0xef, 0xbb, 0xbf };
    int got[3], n = 0;
    while (n < 3 && (got[n] = next_char(r)) == bom[n])
        n++;
    if (n == 3)
        return;
    /* not a mark: what was read goes back, in order */
    int last = n < 3 ? n : 2;
    for (int i = last; i >= 0; i--)
        put_back(r, got[i]);
}

/* Starts field i empty, with a buffer so that data is never NULL. */
static bool field_start(struct csv_reader *r, size_t i)
{
    if (i >= r->max_fields)
        return true;
    struct csv_field *fl = &r->fields[i];
    if (!fl->data) {
        r->caps[i] = 64;
        if (!(fl->data = malloc(r->caps[i])))
            return false;
    }
    fl->len = 0;
    fl->truncated = false;
    fl->data[0] = '\0';
    return true;
}

/* Appends c to field i; past max_field the rest of the field is dropped. */
static bool field_put(struct csv_reader *r, size_t i, int c)
{
    if (i >= r->max_fields)
        return true;
    struct csv_field *fl = &r->fields[i];
    if (fl->len >= r->max_field) {
        fl->truncated = true;
        return true;
    }
    if (fl->len + 2 > r->caps[i]) {
        size_t cap = r->caps[i] * 2;
        if (cap > r->max_field + 1)
            cap = r->max_field + 1;
        char *d = realloc(fl->data, cap);
        if (!d)
            return false;
        fl->data = d;
        r->caps[i] = cap;
    }
    fl->data[fl->len++] = (char)c;
    fl->data[fl->len] = '\0';
    return true;
}

enum state { FIELD_START, UNQUOTED, QUOTED, QUOTE_IN_QUOTED };

enum csv_status csv_reader_next(struct csv_reader *r, const struct csv_field **fields,
                                size_t *n, unsigned long *line, bool *dropped)
{
    if (r->done)
        return CSV_EOF;
    if (!r->started) {
        r->started = true;
        skip_bom(r);
    }
    int c = next_char(r);
    if (c == EOF) {
        r->done = true;
        return ferror(r->f) ? CSV_IO_ERROR : CSV_EOF;
    }
    *line = r->line;
    size_t k = 0;                 /* index of the field being read */
    enum state st = FIELD_START;
    enum csv_status result = CSV_RECORD;
    if (!field_start(r, 0))
        return CSV_IO_ERROR;
    for (;; c = next_char(r)) {
        if (c == '\n')
            r->line++;
        bool end_record = false, end_field = false;
        switch (st) {
        case FIELD_START:
            if (c == '"') {
                st = QUOTED;
                continue;
            }
            st = UNQUOTED;   /* c is the field's first character */
            __attribute__((fallthrough));
        case UNQUOTED:
        case QUOTE_IN_QUOTED:
            if (st == QUOTE_IN_QUOTED && c == '"') {
                /* "" inside a quoted field is one quote */
                if (!field_put(r, k, '"'))
                    return CSV_IO_ERROR;
                st = QUOTED;
                continue;
            }
            if (c == r->delimiter) {
                end_field = true;
            } else if (c == '\r') {
                int next = next_char(r);
                if (next == '\n')
                    r->line++;
                else
                    put_back(r, next);
                if (next != '\n')
                    r->line++;   /* a lone CR ends a line as well */
                end_record = true;
            } else if (c == '\n' || c == EOF) {
                end_record = true;
            } else {
                /* text after a closing quote is kept, leniently */
                st = UNQUOTED;
                if (!field_put(r, k, c))
                    return CSV_IO_ERROR;
            }
            break;
        case QUOTED:
            if (c == '"') {
                st = QUOTE_IN_QUOTED;
            } else if (c == EOF) {
                result = CSV_UNCLOSED;
                end_record = true;
            } else if (!field_put(r, k, c)) {
                return CSV_IO_ERROR;
            }
            break;
        }
        if (end_field) {
            k++;
            if (!field_start(r, k))
                return CSV_IO_ERROR;
            st = FIELD_START;
        }
        if (end_record) {
            if (c == EOF) {
                r->done = true;
                if (ferror(r->f))
                    return CSV_IO_ERROR;
            }
            *fields = r->fields;
            *n = k + 1 < r->max_fields ? k + 1 : r->max_fields;
            *dropped = k + 1 > r->max_fields;
            return result;
        }
    }
}

char csv_sniff_delimiter(const char *head, size_t len)
{
    size_t commas = 0, semicolons = 0, i = 0;
    bool quoted = false;
    if (len >= 3 && !memcmp(head, "\xef\xbb\xbf", 3))
        i = 3;
    for (; i < len; i++) {
        char c = head[i];
        if (c == '"')
            quoted = !quoted;   /* "" inside quotes toggles twice: no change */
        else if (!quoted && (c == '\n' || c == '\r'))
            break;
        else if (!quoted && c == ',')
            commas++;
        else if (!quoted && c == ';')
            semicolons++;
    }
    return semicolons > commas ? ';' : ',';
}

char csv_sniff_file(FILE *f)
{
    char *buf = malloc(CSV_SNIFF_BYTES);
    long at = ftell(f);
    if (!buf || at < 0) {
        free(buf);
        return ',';
    }
    size_t n = fread(buf, 1, CSV_SNIFF_BYTES, f);
    char d = csv_sniff_delimiter(buf, n);
    free(buf);
    clearerr(f);
    if (fseek(f, at, SEEK_SET) != 0)
        return ',';
    return d;
}

const char *csv_trim(const char *s, size_t *len)
{
    while (*len && (*s == ' ' || *s == '\t')) {
        s++;
        (*len)--;
    }
    while (*len && (s[*len - 1] == ' ' || s[*len - 1] == '\t'))
        (*len)--;
    return s;
}
