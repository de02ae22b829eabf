/* verdict.h - the outcome of grading one body, and its JSON form. */
#ifndef BUTTERFLY_VERDICT_H
#define BUTTERFLY_VERDICT_H

#include <jansson.h>
#include <stdbool.h>

#include "common/exercise/exercise.h"

#define VERDICT_SCHEMA 1

/* Judge0's status ids where they overlap; Rejected is ours. */
enum verdict_status {
    VERDICT_ACCEPTED = 3,
    VERDICT_WRONG_ANSWER = 4,
    VERDICT_TIME_LIMIT = 5,
    VERDICT_COMPILATION_ERROR = 6,
    VERDICT_RUNTIME_SIGSEGV = 7,
    VERDICT_RUNTIME_SIGXFSZ = 8,
    VERDICT_RUNTIME_SIGFPE = 9,
    VERDICT_RUNTIME_SIGABRT = 10,
    VERDICT_RUNTIME_NZEC = 11,
    VERDICT_RUNTIME_OTHER = 12,
    VERDICT_INTERNAL_ERROR = 13,
    VERDICT_REJECTED = 100,
};

/* How many statuses there are; verdict_status_at(0 .. n - 1) lists them
 * once each, in the order summaries and metrics show them. */
#define VERDICT_NSTATUSES 12
enum verdict_status verdict_status_at(size_t i);

/* Judge0's description of a status ("Wrong Answer"); never NULL. */
const char *verdict_status_to_str(enum verdict_status s);

/* A short machine name for a status ("wrong_answer"); never NULL. */
const char *verdict_status_slug(enum verdict_status s);

/* True for every runtime-error id (7 to 12). */
bool verdict_status_is_runtime_error(enum verdict_status s);

enum diag_severity { DIAG_ERROR, DIAG_WARNING };

/* "error" or "warning", as the JSON and the reports write it. */
const char *diag_severity_to_str(enum diag_severity s);

/* The kinds of device a verdict names. */
enum device_type { DEVICE_DISCRETE, DEVICE_INTEGRATED, DEVICE_VIRTUAL, DEVICE_CPU, DEVICE_OTHER,
                   DEVICE_NTYPES };

/* "discrete", "integrated", "virtual", "cpu" or "other": a static string. */
const char *device_type_to_str(enum device_type t);

/* The type device_type_to_str names `name`; DEVICE_OTHER for anything else
 * (NULL included). */
enum device_type device_type_from_str(const char *name);

/* How far a grading got: where its verdict was decided, or where its
 * worker was when it was lost. */
enum grade_stage { STAGE_NONE, STAGE_COMPILE, STAGE_RUN, STAGE_NSTAGES };

/* "none", "compile" or "run", for logs; never NULL. */
const char *grade_stage_to_str(enum grade_stage s);

/* One compiler message, on the student's own line numbering. */
struct diagnostic {
    int line;                    /* 1-based; body lines + 1 for "after your code" */
    int column;                  /* 0 when unknown (glslang gives none) */
    enum diag_severity severity;
    char *message;               /* owned */
    char *original;              /* owned; glslang's own text when message was
                                    put in other words, else NULL */
};

struct cell_result {
    double expected;
    float got;
    bool passed;
};

/* One value of the exercise's parameter (for the butterfly, a half). */
struct half_result {
    int half;                          /* the sweep value */
    bool passed;                       /* visible and hidden all right */
    /* the visible input's cells, [plane][index]: the verdict's grid_planes
     * x grid_n of them */
    struct cell_result cells[EX_MAX_PLANES][EX_MAX_N];
    int hidden_passed, hidden_total;   /* hidden spectra right / graded */
};

struct verdict_timings {
    double compile_ms, pipeline_ms, run_ms, total_ms;  /* run_ms < 0: unknown */
};

/* Where the loop budget ran out (Time Limit Exceeded by the grader's count). */
struct verdict_loop {
    int line;                          /* the loop's line in the body; 0 when unknown */
    unsigned limit;                    /* the budget, in loop iterations per thread */
    int half;                          /* the first run and cell that ran over */
    bool hidden;                       /* on a hidden spectrum (else the visible one) */
    int i, plane;
};

/* A named mistake recognised from the outputs (see diagnose.h). */
struct diagnosis {
    char *id, *title, *explanation, *hint;   /* owned */
    char step[16];       /* the recipe step the diagnosis leads with ("j"), or "" */
    char *more;          /* owned, may be NULL: what the page keeps behind "more" */
};

/* A complex number as the worked cell shows it. */
struct complex_value {
    double re, im;
};

/*
 * One output cell worked through with the kernel's own numbers: which pair
 * and twiddle the cell needs, the value due and the value returned (see
 * docs/VERDICT.md, "worked_cell"). Plain data: copied by assignment.
 */
struct worked_cell {
    int half;
    bool hidden;                       /* numbers of a hidden spectrum, not the visible one */
    int i, plane, j, base, r, partner;
    struct complex_value a, b, w, wb;  /* wb = w·b */
    char due[16];                      /* "a + w·b" or "a − w·b" */
    double expected;
    float got;                         /* may be NaN or infinite */
    char got_matches[48];              /* the simple expression got equals, or "" */
    char matches[24];                  /* the same as a slug ("a_minus_wb"), or "" */
    int sign;                          /* the sign due before w·b: +1 (j = 0) or -1 */
    char says[384];                    /* the cell in one sentence, consistent with the
                                          diagnosis (worked_say), or "" */
    bool passed;
    /* the kernel's own numbers, solved from its outputs (issue 32): the
     * elements it read as a and b, its sign and its w, such that a ± w·b
     * gives both planes of this output on every run of the half */
    bool kernel_known;
    int kernel_a, kernel_b, kernel_sign;
    struct complex_value kernel_w;
};

/* The worked cells of the butterfly's diagnosis, the one that works cells
 * through: every visible cell of every half (3 halves x 16 cells;
 * engine/diagnosis/diagnose.c asserts it). */
#define WORKED_CELLS 48

struct verdict {
    enum verdict_status status;
    char *message;                     /* owned; one sentence, may be NULL */
    char task[EX_ID_MAX + 1];          /* the exercise graded ("butterfly") */
    int halves_run;                    /* 0 unless the kernel ran */
    struct half_result halves[EX_MAX_SWEEP];
    /* the grid's dimensions: each half's cells are grid_planes x grid_n
     * (the exercise's output); not in the JSON, read back from the shape
     * of its cells */
    int grid_n, grid_planes;
    struct diagnostic *diags;          /* owned */
    size_t ndiags;
    char *log;                         /* owned, capped compiler log; may be NULL */
    bool log_truncated;
    bool has_device;                   /* the device fields are set */
    char device_name[256], device_driver[256];
    enum device_type device_type;
    struct diagnosis *diagnosis;       /* owned; Wrong Answer only, may be NULL */
    char *summary;                     /* owned; where it fails, in words; may be NULL */
    struct verdict_timings timings;
    uint64_t seed;
    struct verdict_loop *loop;         /* owned; set when a loop ran over its budget */
    struct worked_cell *worked_cell;   /* owned; Wrong Answer only, may be NULL */
    struct worked_cell *worked_cells;  /* owned; NULL or WORKED_CELLS, every visible
                                          cell of every half, half by half */
    /* known to the worker, not in the JSON (the pool's header carries them) */
    enum grade_stage stage;            /* how far grading got */
    bool cache_hit;                    /* the kernel was kept: nothing compiled or built */
};

/* The halves right on every run, visible and hidden: 0 .. halves_run. */
unsigned verdict_score(const struct verdict *v);

/*
 * A deep copy of n diagnostics (message and original included): never
 * NULL for n == 0 (an empty array to free), NULL on OOM.
 */
struct diagnostic *diagnostics_copy(const struct diagnostic *d, size_t n);

/* Frees n diagnostics and the array. Accepts NULL. */
void diagnostics_free(struct diagnostic *d, size_t n);

/* Appends a diagnostic with a copy of message, keeping those already there.
 * False (the verdict unchanged) on OOM. */
bool verdict_add_diagnostic(struct verdict *v, int line, enum diag_severity severity,
                            const char *message);

/* A new verdict with status and a copy of message (may be NULL), of the
 * default exercise (its id and grid; verdict_set_exercise changes them);
 * NULL on OOM. */
struct verdict *verdict_new(enum verdict_status status, const char *message);

/* Makes v a verdict on exercise e: its id and its grid's dimensions. */
void verdict_set_exercise(struct verdict *v, const struct exercise *e);

/* A new diagnosis holding copies of the four strings; NULL on OOM. */
struct diagnosis *diagnosis_new(const char *id, const char *title,
                                const char *explanation, const char *hint);

/* Sets d's step (a slug, cut to fit) and a copy of `more` (may be NULL);
 * false on OOM, d unchanged. */
bool diagnosis_set_more(struct diagnosis *d, const char *step, const char *more);

/* Frees a diagnosis. Accepts NULL. */
void diagnosis_free(struct diagnosis *d);

/* Frees a verdict and all it owns. Accepts NULL. */
void verdict_free(struct verdict *v);

/* Replaces the verdict's message with a formatted one. */
void verdict_set_message(struct verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Makes v the verdict of a grading the deadline stopped: an Internal Error,
 * the grader's limit and never a verdict on the code, since every body
 * within the cost bounds (common/defaults.h) compiles and runs far inside
 * it; only a machine too slow or too busy reaches it, and a faster one
 * would have given the code its verdict. Time Limit Exceeded is for what
 * the code provably does (the loop budget). `compiling` when the compiler
 * was still at work, else the device's compile and run.
 */
void verdict_deadline_hit(struct verdict *v, unsigned deadline_ms, bool compiling);

/* The verdict as JSON (see docs/VERDICT.md); a new reference, NULL on OOM. */
json_t *verdict_to_json(const struct verdict *v);

/*
 * The verdict as the bytes every program answers and stores: compact
 * JSON, floats to 9 digits. malloc'd and NUL-terminated, its length in
 * *len; NULL on OOM.
 */
char *verdict_to_bytes(const struct verdict *v, size_t *len);

/*
 * Rebuilds a verdict from verdict_to_json's output, for the programs that
 * print it in words or build reports from it (the text report, the batch):
 * the pool relays the bytes and parses nothing. Returns NULL when the JSON
 * is not a verdict.
 */
struct verdict *verdict_from_json(const json_t *j);

/* verdict_from_json of `len` bytes of JSON; NULL when they are not one. */
struct verdict *verdict_from_bytes(const char *bytes, size_t len);

#endif
