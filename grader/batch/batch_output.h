/*
 * batch_output.h - the output folder: every file written whole or not at
 * all, and one batch at a time.
 *
 *     OUT/gradebook.csv            one row per input, sorted by id
 *     OUT/summary.json             the class at a glance
 *     OUT/students/KEY/results.json  one per student (KEY: batch_id_key)
 *     OUT/reports/KEY.html         one per student, for the instructor
 *     OUT/.tmp/                    files being written; emptied at start
 *     OUT/.lock                    held (flock) while a batch runs
 *
 * A file is written to .tmp, flushed to disk (fsync), then renamed over
 * its name, and the folder is synced: a batch killed at any moment, even
 * by kill -9 or a power cut, leaves each file either old and whole or new
 * and whole.
 */
#ifndef BUTTERFLY_BATCH_OUTPUT_H
#define BUTTERFLY_BATCH_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct batch_output {
    int dir_fd, students_fd, tmp_fd, lock_fd;
    int reports_fd;              /* OUT/reports, once batch_output_reports_begin opened it */
    unsigned long seq;           /* names temporary files */
};

#define BATCH_REPORTS_DIR "reports"   /* OUT/reports/KEY.html */

/* A batch_output that holds nothing, for batch_output_close on any path. */
#define BATCH_OUTPUT_NONE { -1, -1, -1, -1, -1, 0 }

/*
 * Opens (creating it, not its parents) the output folder, takes its lock,
 * and empties .tmp of what an interrupted batch left. False with a reason
 * in err (another batch holds the lock, no permission). Release with
 * batch_output_close() either way.
 */
bool batch_output_open(struct batch_output *o, const char *path, char *err, size_t errsz);

/* Releases the lock and the folders. Accepts a zeroed or failed one. */
void batch_output_close(struct batch_output *o);

/* The output folder's device and inode, so the input scan can skip it. */
bool batch_output_identity(const struct batch_output *o, dev_t *dev, ino_t *ino);

/* Writes OUT/name atomically. False with a reason in err. */
bool batch_output_write(struct batch_output *o, const char *name, const void *data, size_t len,
                        char *err, size_t errsz);

/*
 * Opens (creating) OUT/reports and removes the files an earlier run wrote
 * there: the reports are rebuilt from the results at every run. False
 * with a reason in err.
 */
bool batch_output_reports_begin(struct batch_output *o, char *err, size_t errsz);

/*
 * Writes OUT/reports/key.html atomically but without waiting for the disk
 * (fsync): a report is rebuilt from the results, and a class of thousands
 * must not wait thousands of syncs.
 */
bool batch_output_write_report(struct batch_output *o, const char *key, const void *data,
                               size_t len, char *err, size_t errsz);

/* Writes OUT/students/key/results.json atomically, creating the folder. */
bool batch_output_write_student(struct batch_output *o, const char *key, const void *data,
                                size_t len, char *err, size_t errsz);

/*
 * Reads OUT/students/key/results.json (at most BATCH_RECORD_MAX bytes).
 * Returns a malloc'd, NUL-terminated buffer, or NULL when there is none
 * or it cannot be read.
 */
char *batch_output_read_student(const struct batch_output *o, const char *key, size_t *len);

/* Reads OUT/name, a regular file of at most max bytes, the same way. */
char *batch_output_read(const struct batch_output *o, const char *name, size_t max, size_t *len);

#endif
