/*
 * fuzz_frame - the supervisor's frame reader, fed what a worker (student
 * code's neighbour) might send: any bytes, delivered in pieces. The first
 * byte sets the size of the pieces; the rest goes through a non-blocking
 * pipe a piece at a time, the reader polled after each, as the supervisor
 * does; a verdict frame's header is checked as the supervisor checks it,
 * a job frame as the worker splits it.
 * Then the same bytes through the blocking reader.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether the text in s[0..size) ends within it. */
static bool whole(const char *s, size_t size)
{
    return strnlen(s, size) < size;
}

static void drain(struct frame_reader *r, int fd, int *frames)
{
    for (;;) {
        enum frame_type type;
        char *payload;
        size_t len;
        enum frame_read_status st = frame_reader_poll(r, fd, &type, &payload, &len);
        if (st != FRAME_READ_DONE)
            return;
        if (len > FRAME_MAX_PAYLOAD || payload[len] != '\0')
            abort();
        struct frame_verdict h;
        const char *json;
        size_t json_len;
        /* an accepted header's facts are whole texts the server can store */
        if (type == FRAME_VERDICT && frame_parse_verdict(payload, len, &h, &json, &json_len) &&
            (json_len + FRAME_VERDICT_HEAD != len || json[0] != '{' || h.stage >= STAGE_NSTAGES ||
             !whole(h.facts.shown.key, sizeof h.facts.shown.key) ||
             !whole(h.facts.shown.label, sizeof h.facts.shown.label) ||
             !whole(h.facts.device, sizeof h.facts.device) || h.facts.points > h.facts.max_points))
            abort();
        /* a job's id (the worker's, the worker's neighbour's) stays in its
         * bound and the body ends where the frame does */
        uint64_t seed;
        char exercise[EX_ID_MAX + 1];
        const char *body;
        size_t body_len;
        if (type == FRAME_JOB &&
            frame_parse_job(payload, len, &seed, exercise, &body, &body_len) &&
            (strlen(exercise) > EX_ID_MAX || body + body_len != payload + len))
            abort();
        (*frames)++;
        free(payload);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 256 * 1024)
        return 0;
    size_t piece = 1 + (size_t)data[0] * 17;
    data++;
    size--;

    int p[2];
    if (pipe2(p, O_NONBLOCK | O_CLOEXEC) != 0)
        return 0;
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    struct frame_reader r;
    memset(&r, 0, sizeof r);
    int frames = 0;
    for (size_t off = 0; off < size; off += piece) {
        size_t n = size - off < piece ? size - off : piece;
        if (write(p[1], data + off, n) != (ssize_t)n)
            abort();
        drain(&r, p[0], &frames);
    }
    close(p[1]);
    enum frame_type type;
    char *payload;
    size_t len;
    /* with the writer gone, the reader must end: never "more" */
    enum frame_read_status st;
    while ((st = frame_reader_poll(&r, p[0], &type, &payload, &len)) == FRAME_READ_DONE)
        free(payload);
    if (st == FRAME_READ_MORE)
        abort();
    frame_reader_clear(&r);
    close(p[0]);

    if (pipe2(p, O_CLOEXEC) != 0)
        return 0;
    fcntl(p[1], F_SETPIPE_SZ, 1 << 20);
    if (write(p[1], data, size) != (ssize_t)size)
        abort();
    close(p[1]);
    int blocking = 0;
    while (frame_read(p[0], &type, &payload, &len)) {
        if (payload[len] != '\0')
            abort();
        blocking++;
        free(payload);
    }
    close(p[0]);
    /* both readers see the same whole frames */
    if (blocking != frames)
        abort();
    return 0;
}
