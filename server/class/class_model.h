/*
 * class_model.h - the class as the live view shows it, in memory: every
 * student's tile (attempts, latest verdict and mistake, best points) and
 * every record's summary in the order this instance learnt of it.
 *
 * Built from the store at start and kept up to date, one record at a
 * time, by the feed's thread (class_feed.c), so that the summary, the
 * roster and a replay are answered from memory, never from the store on
 * libmicrohttpd's threads. Not thread-safe: the feed holds its lock.
 */
#ifndef BUTTERFLY_CLASS_MODEL_H
#define BUTTERFLY_CLASS_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/defaults.h"
#include "common/exercise/exercise.h"
#include "common/verdict_facts.h"
#include "store/store.h"
#include "store/store_class.h"

#define CLASS_TEXT_MAX 160   /* a name, a section, a mistake's words: cut past this */

/* When a student counts as stuck (the options --stuck-*). */
struct class_thresholds {
    unsigned attempts;   /* attempts without passing ... */
    unsigned minutes;    /* ... spread over at least this many minutes */
    unsigned repeats;    /* or the same mistake this many times in a row */
};

/* What the view keeps of one record. */
struct class_rec {
    char id[STORE_ID_SIZE];
    char task[EX_ID_MAX + 1];    /* its exercise's id */
    int8_t t;                    /* its exercise's place in the model's table, -1: none */
    uint32_t student;        /* index into the students */
    int64_t received_ms, graded_ms;
    int status, points, max_points;
    bool late;               /* after its due date (store_record.late) */
    /* a mark per value of its exercise's sweep, in sweep order (the
     * butterfly's half 1, 2, 4; butterfly16's 1, 2, 4, 8), as the store
     * keeps them: 1 passed, 0 failed, -1 not run (or no such value) */
    int8_t halves[EX_MAX_SWEEP];
    char key[CLASS_TEXT_MAX];    /* "mistake:ID", "compile:MESSAGE" or "" */
    char label[CLASS_TEXT_MAX];  /* the words shown */
};

/* One student's attempts at one exercise, or at all of them. */
struct class_progress {
    unsigned attempts;
    unsigned late;               /* of them, after the due date */
    int64_t first_ms, last_ms;   /* received_ms of the first and the latest */
    int best_points, max_points;
    bool accepted;               /* some attempt was Accepted */
    int last_status;             /* -1: no attempt */
    unsigned repeats;            /* the latest key, this many times in a row */
    char last_id[STORE_ID_SIZE];
};

struct class_student {
    char id[CLASS_TEXT_MAX];
    char name[CLASS_TEXT_MAX];
    char section[CLASS_TEXT_MAX];
    bool verified;
    struct class_progress all;   /* every exercise's attempts together */
    char last_key[CLASS_TEXT_MAX], last_label[CLASS_TEXT_MAX];   /* of all's latest */
    struct class_progress task[CLASS_MAX_TASKS];   /* per exercise of the model's table
                                                    * (the latest's key: its record's) */
};

struct class_model;

struct class_model *class_model_new(const struct class_thresholds *t);
void class_model_free(struct class_model *m);

/* Adds or updates a student from the roster (or a guest's name). False on OOM. */
bool class_model_put_student(struct class_model *m, const char *id, const char *name,
                             const char *section, bool verified);

/* Whether student id is known. */
bool class_model_has_student(const struct class_model *m, const char *id);

/* Removes student id, their tile and every record of theirs (forgotten
 * by butterfly-admin): true when they were there. The others' records
 * keep their order. */
bool class_model_forget(struct class_model *m, const char *id);

/* Whether a record with this id was added already. */
bool class_model_has_record(const struct class_model *m, const char *id);

/*
 * Adds record r (its verdict parsed for the mistake and the halves); a
 * student not known yet is added as "unknown" (put them first). Returns
 * the index of the new record, -1 when it was there already or on OOM.
 */
long class_model_add(struct class_model *m, const struct store_record *r);

/* As class_model_add, with the facts given: r's verdict is not read
 * (it may be NULL). */
long class_model_add_facts(struct class_model *m, const struct store_record *r,
                           const struct verdict_shown *f);

/* The same from the store's light row (store_class_rows: the facts as
 * the store keeps them in columns). */
long class_model_add_row(struct class_model *m, const struct store_class_row *r);

/* Records held, in the order they were added. */
size_t class_model_count(const struct class_model *m);

/* The index of the record with this id, -1 when none. */
long class_model_find(const struct class_model *m, const char *id);

/* The first index to replay after the record at index i: i + 1, or
 * earlier to include every record graded within slack_ms before it. */
size_t class_model_replay_from(const struct class_model *m, size_t i, int64_t slack_ms);

/* Record i's event as JSON: the record and its student's tile now. */
json_t *class_model_event(const struct class_model *m, size_t i, int64_t now_ms);

/* The id of record i. */
const char *class_model_record_id(const struct class_model *m, size_t i);

/* The student id of record i, NULL when nobody signed in. */
const char *class_model_record_student(const struct class_model *m, size_t i);

/* Orders the records by graded_ms, then id (after a load from the store,
 * whose walk is by student). */
void class_model_sort(struct class_model *m);

/* The id of the latest record, "" when none. */
const char *class_model_last_id(const struct class_model *m);

/* members, in the three below: a JSON object whose keys are the ids of
 * the students of one class (the others are left out); NULL: everyone.
 * task, in the two below: an exercise's id, whose attempts alone the
 * numbers, the tiles' attempts, latest verdict, mistake and stuckness
 * count (?task=ID); NULL: every exercise's together. An exercise with no
 * record yet counts nothing. */

/* The at-a-glance numbers of GET /api/class/summary, and a summary per
 * exercise ("exercises": the built-in ones in course order, then those
 * only the records name). */
json_t *class_model_summary(const struct class_model *m, const json_t *members,
                            const char *task, int64_t now_ms);

/* Every student's tile, for GET /api/class/students; each tile's
 * "progress" holds the student's attempts, best points and whether one
 * was Accepted, per exercise they tried. */
json_t *class_model_students(const struct class_model *m, const json_t *members,
                             const char *task, int64_t now_ms);

/* One student's tile, NULL when unknown. */
json_t *class_model_tile(const struct class_model *m, const char *id, int64_t now_ms);

/* The gradebook from the records (best points per student) as CSV text,
 * then one column per exercise, named by its id, holding the student's
 * best points at it ("" when never tried); the caller frees. */
char *class_model_gradebook_csv(const struct class_model *m, const json_t *members,
                                size_t *len);

/* Whether the student at index s is stuck now, over every exercise. */
bool class_model_stuck(const struct class_model *m, const struct class_student *s);

/* The thresholds, as the page shows them. */
json_t *class_model_thresholds(const struct class_model *m);

#endif
