/* frame.c - typed, length-prefixed frames over a socket. */
#include "common/io/frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/io/fdio.h"

static void put_header(unsigned char h[FRAME_HEADER], enum frame_type type, size_t len)
{
    h[0] = (unsigned char)type;
    for (int i = 0; i < 4; i++)
        h[1 + i] = (unsigned char)(len >> (8 * i));
}

static size_t header_len(const unsigned char h[FRAME_HEADER])
{
    return (size_t)h[1] | (size_t)h[2] << 8 | (size_t)h[3] << 16 | (size_t)h[4] << 24;
}

bool frame_write(int fd, enum frame_type type, const void *payload, size_t len)
{
    unsigned char h[FRAME_HEADER];
    if (len > FRAME_MAX_PAYLOAD)
        return false;
    put_header(h, type, len);
    return fdio_send_all(fd, h, sizeof h) && fdio_send_all(fd, payload, len);
}

bool frame_write_job(int fd, uint64_t seed, const char *exercise, const void *body, size_t len)
{
    size_t idl = exercise ? strlen(exercise) : 0;
    unsigned char head[FRAME_HEADER + FRAME_JOB_SEED + 1 + EX_ID_MAX];
    if (idl > EX_ID_MAX || len > FRAME_MAX_PAYLOAD - FRAME_JOB_SEED - 1 - idl)
        return false;
    put_header(head, FRAME_JOB, FRAME_JOB_SEED + 1 + idl + len);
    for (int i = 0; i < FRAME_JOB_SEED; i++)
        head[FRAME_HEADER + i] = (unsigned char)(seed >> (8 * i));
    head[FRAME_HEADER + FRAME_JOB_SEED] = (unsigned char)idl;
    if (idl)
        memcpy(head + FRAME_HEADER + FRAME_JOB_SEED + 1, exercise, idl);
    return fdio_send_all(fd, head, FRAME_HEADER + FRAME_JOB_SEED + 1 + idl) &&
           fdio_send_all(fd, body, len);
}

static void put_le(unsigned char *p, uint64_t x, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (unsigned char)(x >> (8 * i));
}

static uint64_t get_le(const char *p, int bytes)
{
    uint64_t x = 0;
    for (int i = 0; i < bytes; i++)
        x |= (uint64_t)(unsigned char)p[i] << (8 * i);
    return x;
}

void frame_verdict_of(const struct verdict *v, struct frame_verdict *h)
{
    *h = (struct frame_verdict){ .status = v->status, .score = verdict_score(v),
                                 .seed = v->seed };
}

/* The facts' part of the header, at p (FRAME_VERDICT_HEAD - FRAME_VERDICT_FIXED bytes). */
static void put_facts(unsigned char *p, const struct verdict_facts *f)
{
    put_le(p, f->points, 4);
    put_le(p + 4, f->max_points, 4);
    p += 8;
    const struct verdict_shown *sh = &f->shown;
    for (int k = 0; k < EX_MAX_SWEEP; k++)
        *p++ = (unsigned char)sh->halves[k];
    memcpy(p, sh->key, sizeof sh->key);
    memcpy(p + sizeof sh->key, sh->label, sizeof sh->label);
    memcpy(p + sizeof sh->key + sizeof sh->label, f->device, sizeof f->device);
}

static void get_facts(const char *p, struct verdict_facts *f)
{
    f->points = (unsigned)get_le(p, 4);
    f->max_points = (unsigned)get_le(p + 4, 4);
    p += 8;
    struct verdict_shown *sh = &f->shown;
    for (int k = 0; k < EX_MAX_SWEEP; k++)
        sh->halves[k] = (int8_t)*p++;
    memcpy(sh->key, p, sizeof sh->key);
    memcpy(sh->label, p + sizeof sh->key, sizeof sh->label);
    memcpy(f->device, p + sizeof sh->key + sizeof sh->label, sizeof f->device);
}

bool frame_write_verdict(int fd, const struct frame_verdict *h, const char *json, size_t len)
{
    unsigned char head[FRAME_HEADER + FRAME_VERDICT_HEAD];
    unsigned char *p = head + FRAME_HEADER;
    if (len > FRAME_MAX_PAYLOAD - FRAME_VERDICT_HEAD)
        return false;
    put_header(head, FRAME_VERDICT, FRAME_VERDICT_HEAD + len);
    put_le(p, (uint64_t)h->status, 2);
    put_le(p + 2, (uint64_t)h->stage, 1);
    put_le(p + 3, (uint64_t)(h->cache_hit | h->kept << 1), 1);
    put_le(p + 4, h->score, 4);
    put_le(p + 8, h->seed, 8);
    put_le(p + 16, h->dropped, 8);
    put_facts(p + FRAME_VERDICT_FIXED, &h->facts);
    return fdio_send_all(fd, head, sizeof head) && fdio_send_all(fd, json, len);
}

bool frame_parse_verdict(const char *payload, size_t len, struct frame_verdict *h,
                         const char **json, size_t *json_len)
{
    if (len < FRAME_VERDICT_HEAD + 2)
        return false;
    unsigned status = (unsigned)get_le(payload, 2);
    unsigned stage = (unsigned)get_le(payload + 2, 1);
    unsigned flags = (unsigned)get_le(payload + 3, 1);
    bool known = false;
    for (size_t i = 0; i < VERDICT_NSTATUSES; i++)
        known |= verdict_status_at(i) == (enum verdict_status)status;
    *h = (struct frame_verdict){
        .status = (enum verdict_status)status,
        .stage = (enum grade_stage)stage,
        .cache_hit = flags & 1,
        .kept = flags & 2,
        .score = (unsigned)get_le(payload + 4, 4),
        .seed = get_le(payload + 8, 8),
        .dropped = get_le(payload + 16, 8),
    };
    get_facts(payload + FRAME_VERDICT_FIXED, &h->facts);
    *json = payload + FRAME_VERDICT_HEAD;
    *json_len = len - FRAME_VERDICT_HEAD;
    /* the bytes go out to clients as they are: at least, one object */
    return known && stage < STAGE_NSTAGES && flags < 4 && h->score <= EX_MAX_SWEEP &&
           verdict_facts_sane(&h->facts) &&
           (*json)[0] == '{' && (*json)[*json_len - 1] == '}' &&
           !memchr(*json, '\0', *json_len);
}

/* An id as the registry writes them: [a-z0-9_-], so that a frame cannot
 * smuggle a path or a control byte into the worker's messages. */
static bool id_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool frame_parse_job(const char *payload, size_t len, uint64_t *seed,
                     char exercise[EX_ID_MAX + 1], const char **body, size_t *body_len)
{
    if (len < FRAME_JOB_SEED + 1)
        return false;
    uint64_t s = 0;
    for (int i = 0; i < FRAME_JOB_SEED; i++)
        s |= (uint64_t)(unsigned char)payload[i] << (8 * i);
    size_t idl = (unsigned char)payload[FRAME_JOB_SEED];
    if (idl > EX_ID_MAX || len - FRAME_JOB_SEED - 1 < idl)
        return false;
    const char *id = payload + FRAME_JOB_SEED + 1;
    for (size_t i = 0; i < idl; i++)
        if (!id_byte(id[i]))
            return false;
    memcpy(exercise, id, idl);
    exercise[idl] = '\0';
    *seed = s;
    *body = id + idl;
    *body_len = len - FRAME_JOB_SEED - 1 - idl;
    return true;
}

bool frame_read(int fd, enum frame_type *type, char **payload, size_t *len)
{
    unsigned char h[FRAME_HEADER];
    if (!fdio_read_all(fd, h, sizeof h))
        return false;
    size_t n = header_len(h);
    if (n > FRAME_MAX_PAYLOAD)
        return false;
    char *p = malloc(n + 1);
    if (!p)
        return false;
    if (!fdio_read_all(fd, p, n)) {
        free(p);
        return false;
    }
    p[n] = '\0';
    *type = (enum frame_type)h[0];
    *payload = p;
    *len = n;
    return true;
}

enum frame_read_status frame_reader_poll(struct frame_reader *r, int fd,
                                         enum frame_type *type, char **payload,
                                         size_t *len)
{
    for (;;) {
        void *dst;
        size_t want;
        if (!r->payload) {
            dst = r->header + r->have;
            want = FRAME_HEADER - r->have;
        } else {
            dst = r->payload + r->have;
            want = r->len - r->have;
        }
        if (want > 0) {
            ssize_t n = read(fd, dst, want);
            if (n == 0)
                return FRAME_READ_EOF;
            if (n < 0) {
                if (errno == EINTR)
                    continue;
                return errno == EAGAIN || errno == EWOULDBLOCK ? FRAME_READ_MORE
                                                               : FRAME_READ_ERROR;
            }
            r->have += (size_t)n;
            if ((size_t)n < want)
                continue;
        }
        if (!r->payload) {
            /* header complete: a worker is student code's neighbour, so its
             * lengths are checked like any other input */
            r->len = header_len(r->header);
            if (r->len > FRAME_MAX_PAYLOAD || !(r->payload = malloc(r->len + 1)))
                return FRAME_READ_ERROR;
            r->have = 0;
            if (r->len > 0)
                continue;
        }
        r->payload[r->len] = '\0';
        *type = (enum frame_type)r->header[0];
        *payload = r->payload;
        *len = r->len;
        r->payload = NULL;
        r->have = 0;
        return FRAME_READ_DONE;
    }
}

const char *frame_read_status_to_str(enum frame_read_status s)
{
    switch (s) {
    case FRAME_READ_MORE: return "more";
    case FRAME_READ_DONE: return "done";
    case FRAME_READ_EOF: return "end of file";
    case FRAME_READ_ERROR: return "error";
    }
    return "unknown";
}

void frame_reader_clear(struct frame_reader *r)
{
    free(r->payload);
    memset(r, 0, sizeof *r);
}
