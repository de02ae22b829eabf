/*
 * batch_input.h - the submissions of a class: found, named, accounted for.
 *
 * Every input becomes one entry, whatever is wrong with it: an entry the
 * batch must not grade carries the reason (its `refusal`) and becomes a
 * Rejected row. Nothing found is dropped, except hidden entries of a
 * directory (names starting with a dot) and the output folder when it
 * lies in the input folder, which are counted.
 */
#ifndef BUTTERFLY_BATCH_INPUT_H
#define BUTTERFLY_BATCH_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "batch/input/batch_id.h"
#include "gradebook/default_layout.h"

#define BATCH_MAX_INPUTS        100000
#define BATCH_MAX_TABLE_SOURCES (512u * 1024 * 1024)  /* bytes of bodies held from a CSV or JSONL file */
#define BATCH_MAX_FOLDER_FILES  1000                  /* entries looked at in one student's folder */
#define BATCH_MAX_JSONL_LINE    (1024 * 1024)
#define BATCH_MAX_STDIN         (1024ull * 1024 * 1024)  /* bytes of an export read from "-" */
#define BATCH_STDIN_NAME        "stdin"                  /* its name in locations: "stdin:17" */

enum batch_format { BATCH_FORMAT_AUTO, BATCH_FORMAT_DIR, BATCH_FORMAT_CSV, BATCH_FORMAT_JSONL,
                    BATCH_FORMAT_DATABASE /* --from-database: batch_input_db.h */ };

/* The name of a format ("dir", "csv", "jsonl", "auto"); never NULL. */
const char *batch_format_to_str(enum batch_format f);

struct batch_input {
    char *id;           /* the id, or its printable form when it is unusable ("" if none) */
    bool id_ok;         /* the id passed batch_id_problem */
    char key[BATCH_KEY_MAX];  /* its name on disk; "" unless id_ok */
    char *location;     /* printable: "alice.glsl", "bob/kernel.glsl", "class.csv:17" */
    char *folder;       /* directory input: the student's folder, or NULL */
    char *file;         /* directory input: the file, in `folder` or at the top */
    char *source;       /* table input: the body, at most TASK_MAX_SOURCE + 1 bytes */
    size_t source_len;
    char *refusal;      /* why it is Rejected without grading, or NULL */
    bool duplicate;     /* refused because its id appears more than once */
    struct batch_stored *stored;   /* owned; a stored record's part (--from-database), or NULL */
};

/* What a server recorded for an input read from its records. */
struct batch_stored {
    char *record_id;
    char *name;                 /* the student's name as the store has it */
    bool unverified;            /* an open lab's display name */
    uint64_t seed;              /* the seed it was graded with */
    char sha[65];               /* SHA-256 of its source */
    char *verdict;              /* the verdict JSON the student was answered */
    size_t verdict_len;
    int64_t received_ms;
    struct gradebook_late late;  /* the student's attempts against the due date */
};

struct batch_inputs {
    struct batch_input *v;
    size_t n, cap;
    enum batch_format format;   /* what was read */
    int dir_fd;                 /* a directory input's folder, else -1 */
    size_t hidden;              /* entries left out: hidden ones, the output folder */
    size_t held;                /* bytes of bodies held */
};

struct batch_input_options {
    const char *path;                   /* "-": a CSV or JSON Lines export on standard input */
    enum batch_format format;           /* AUTO: a directory, *.csv, else JSON Lines */
    const char *id_column;              /* NULL: id, student_id, student */
    const char *source_column;          /* NULL: source, code, submission */
    dev_t skip_dev;                     /* a directory entry to leave out: */
    ino_t skip_ino;                     /* the output folder (0: none) */
    FILE *stream;                       /* path "-": batch_input_spool_stdin's copy */
};

/*
 * Copies standard input (at most BATCH_MAX_STDIN bytes) into an unnamed
 * temporary file, rewound, so that a CSV or JSON Lines export can come
 * through a pipe and still be sniffed and read like a file. Returns the
 * file, which the caller closes, or NULL with a reason in err.
 */
FILE *batch_input_spool_stdin(char *err, size_t errsz);

/*
 * Reads the inputs at o->path into *in: finds every submission, checks
 * every id (an unusable one is refused), refuses every input of an id
 * that appears more than once, and sorts them by id, then by location.
 * Returns false with a reason in err when the inputs as a whole cannot
 * be read (no such path, no id column, too many inputs); *in is then
 * empty. Release *in with batch_inputs_free().
 */
bool batch_inputs_load(const struct batch_input_options *o, struct batch_inputs *in,
                       char *err, size_t errsz);

/*
 * The body of input i, at most TASK_MAX_SOURCE + 1 bytes (so a longer one
 * is seen as too long): a table's body moves to the caller; a directory
 * input's file is read now, refusing symbolic links and anything but a
 * regular file. Returns a malloc'd buffer the caller frees, or NULL with
 * the reason in why.
 */
char *batch_input_take_source(struct batch_inputs *in, size_t i, size_t *len,
                              char *why, size_t whysz);

/* Sorts the inputs by id (bytes), then by location, as batch_inputs_load
 * leaves them and the gradebooks need them. */
void batch_inputs_sort(struct batch_inputs *in);

/* Releases what *in holds. Accepts an empty one. */
void batch_inputs_free(struct batch_inputs *in);

/* --- for the loaders ------------------------------------------------- */

/*
 * Appends an input with the id's len bytes (NULL: no id was found) and a
 * location made printable. Returns the new entry, or NULL on OOM or when
 * there are BATCH_MAX_INPUTS already (with the reason in err).
 */
struct batch_input *batch_inputs_add(struct batch_inputs *in, const char *id, size_t len,
                                     const char *location, char *err, size_t errsz);

/* Sets the entry's refusal to a formatted reason (replacing one); false on OOM. */
bool batch_input_refuse(struct batch_input *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The last part of a path ("class.csv"), for locations that read the
 * same wherever the file lies. Points into path. */
const char *batch_input_base_name(const char *path);

/* Loads a directory: one file or one folder per student. */
bool batch_input_dir_load(const struct batch_input_options *o, struct batch_inputs *in,
                          char *err, size_t errsz);

/*
 * Loads a CSV export with a header row from f (the caller's, seekable;
 * its delimiter, ',' or ';', is sniffed). `name` is the file's name in
 * locations ("class.csv", "stdin") and `path` its name in messages.
 */
bool batch_input_csv_load(const struct batch_input_options *o, FILE *f, const char *name,
                          const char *path, struct batch_inputs *in, char *err, size_t errsz);

/* Loads a JSON Lines export, one object per line, from f (the caller's). */
bool batch_input_jsonl_load(const struct batch_input_options *o, FILE *f, const char *name,
                            const char *path, struct batch_inputs *in, char *err, size_t errsz);

/*
 * Whether a column or key name is one of the usual names of the id
 * (`want` NULL) or equals `want`, ignoring case and surrounding blanks.
 * Returns the rank of the usual name matched (0 best), or -1.
 */
int batch_input_match_id(const char *name, size_t len, const char *want);

/* The same for the source column: source, code, submission. */
int batch_input_match_source(const char *name, size_t len, const char *want);

#endif
