/* frame.h - the supervisor-worker protocol (pool/ and worker/ both speak it): typed, length-prefixed frames. */
#ifndef BUTTERFLY_FRAME_H
#define BUTTERFLY_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"
#include "common/verdict_facts.h"

/*
 * A frame is one type byte, a 32-bit little-endian payload length, then
 * the payload. Supervisor to worker: FRAME_JOB (the seed of the job's
 * hidden inputs, 64 bits little-endian; the exercise's id, one length
 * byte (0: the default exercise) then that many bytes; then the body). Worker to
 * supervisor: FRAME_READY (JSON: the device) once warm, FRAME_STAGE (one
 * byte, an enum grade_stage) as a job moves on, FRAME_VERDICT (a fixed
 * header, struct frame_verdict, then the verdict's JSON bytes: the bytes
 * the server answers and the records keep, relayed unparsed).
 */
enum frame_type {
    FRAME_JOB = 'J',
    FRAME_READY = 'R',
    FRAME_STAGE = 'S',
    FRAME_VERDICT = 'V',
};

/* butterfly-worker's exit status when it fails for reasons of its own:
 * the supervisor never blames it on the student (pool/worker_loss.h). */
#define WORKER_EXIT_INTERNAL 70

#define FRAME_HEADER 5
#define FRAME_JOB_SEED 8
/* The largest payload either side accepts: a verdict with a full compile
 * log and every diagnostic is far below this. */
#define FRAME_MAX_PAYLOAD (1024 * 1024)

/*
 * Writes one whole frame to a socket (send with MSG_NOSIGNAL: a peer that
 * is gone is an error, not SIGPIPE), retrying short writes and EINTR.
 * Returns false on any error, and on a non-blocking socket whose buffer
 * is full.
 */
bool frame_write(int fd, enum frame_type type, const void *payload, size_t len);

/*
 * What the pool and the server must know of a verdict without reading its
 * JSON. On the wire, little-endian: status u16, stage u8, flags u8
 * (1: cache_hit, 2: kept), score u32, seed u64, dropped u64; then the
 * facts: points u32, max_points u32, halves (EX_MAX_SWEEP i8), key, label
 * and device (each its whole array, NUL-padded); FRAME_VERDICT_HEAD bytes.
 */
struct frame_verdict {
    enum verdict_status status;
    enum grade_stage stage;      /* how far the grading got */
    unsigned score;              /* verdict_score: halves right on every run */
    uint64_t seed;               /* of the hidden spectra, as in the JSON */
    bool cache_hit;              /* the kernel was the worker's already */
    bool kept;                   /* the worker keeps this body's kernel now */
    uint64_t dropped;            /* hash_fnv1a64 of the text whose kernel the
                                    worker let go in this job; 0: none */
    struct verdict_facts facts;  /* what a record keeps beside the bytes */
};
#define FRAME_VERDICT_FIXED 24
#define FRAME_VERDICT_HEAD (FRAME_VERDICT_FIXED + 8 + EX_MAX_SWEEP + 2 * VERDICT_FACTS_TEXT + \
                            VERDICT_FACTS_DEVICE)

/* The header of verdict v (status, score, seed; the rest zero, the facts
 * too: only a graded verdict is recorded, and the worker that made it
 * adds them, verdict_facts_of; the pool's stand-ins go without). */
void frame_verdict_of(const struct verdict *v, struct frame_verdict *h);

/* Writes a FRAME_VERDICT: h, then json (len bytes). As frame_write. */
bool frame_write_verdict(int fd, const struct frame_verdict *h, const char *json, size_t len);

/*
 * Splits a FRAME_VERDICT payload into its header and JSON (which points
 * into payload). False, *h unspecified, when the payload is too short,
 * the status or the stage is not one there is, the score is over
 * EX_MAX_SWEEP, or what follows is not one JSON object ({...}): a worker
 * that sends that is not sane.
 */
bool frame_parse_verdict(const char *payload, size_t len, struct frame_verdict *h,
                         const char **json, size_t *json_len);

/* Writes a FRAME_JOB: the seed, the exercise's id (NULL or "": the
 * default exercise), then the body (len bytes). As frame_write; false
 * too for an id longer than EX_ID_MAX. */
bool frame_write_job(int fd, uint64_t seed, const char *exercise, const void *body, size_t len);

/* Splits a FRAME_JOB payload into its seed, its exercise's id (copied
 * into exercise, "" for the default) and its body (which points into
 * payload). False when it is too short, or its id is longer than
 * EX_ID_MAX or holds a byte outside [a-z0-9_-]. */
bool frame_parse_job(const char *payload, size_t len, uint64_t *seed,
                     char exercise[EX_ID_MAX + 1], const char **body, size_t *body_len);

/*
 * Reads one whole frame from a blocking fd into a malloc'd payload (NUL-
 * terminated for convenience; the caller frees). Returns false at end of
 * file, on error, or when the length is over FRAME_MAX_PAYLOAD.
 */
bool frame_read(int fd, enum frame_type *type, char **payload, size_t *len);

/* Incremental reader for a non-blocking fd. Zero-initialise to start. */
struct frame_reader {
    unsigned char header[FRAME_HEADER];
    size_t have;          /* bytes of header, then of payload, so far */
    char *payload;        /* owned while a frame is being read */
    size_t len;
};

enum frame_read_status {
    FRAME_READ_MORE,      /* nothing complete yet: poll again */
    FRAME_READ_DONE,      /* one frame complete: *type, *payload, *len set */
    FRAME_READ_EOF,       /* the peer closed the connection */
    FRAME_READ_ERROR,     /* read error, or a frame over the limit */
};

/* "more", "done", "end of file" or "error"; never NULL. */
const char *frame_read_status_to_str(enum frame_read_status s);

/*
 * Reads what is available without blocking. On FRAME_READ_DONE the
 * payload's ownership moves to the caller and the reader is ready for the
 * next frame; call again, since more frames may already be buffered.
 */
enum frame_read_status frame_reader_poll(struct frame_reader *r, int fd,
                                         enum frame_type *type, char **payload,
                                         size_t *len);

/* Releases a partly read frame. Accepts a zeroed reader. */
void frame_reader_clear(struct frame_reader *r);

#endif
