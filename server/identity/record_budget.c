/* record_budget.c - records and bytes kept per client in a window. */
#include "server/identity/record_budget.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

/* A table of fixed size, as the token guard's (server/auth.c): a client
 * that shares a slot with another shares its budget, which errs on the
 * side of not keeping; an attacker cycling addresses is bounded per
 * address all the same, and the store's size limit bounds them all. */
#define BUDGET_SLOTS 4096

struct budget_slot {
    struct client_id client;
    time_t window_start;
    unsigned records;
    uint64_t bytes;
};

struct record_budget {
    pthread_mutex_t lock;
    unsigned max_records, window_s;
    uint64_t max_bytes;
    struct budget_slot slots[BUDGET_SLOTS];
    uint64_t kept, kept_bytes, refused[BUDGET_BYTES + 1];
};

struct record_budget *record_budget_new(unsigned records, uint64_t bytes, unsigned window_s)
{
    struct record_budget *b = calloc(1, sizeof *b);
    if (b) {
        pthread_mutex_init(&b->lock, NULL);
        b->max_records = records;
        b->max_bytes = bytes;
        b->window_s = window_s;
    }
    return b;
}

void record_budget_free(struct record_budget *b)
{
    if (!b)
        return;
    pthread_mutex_destroy(&b->lock);
    free(b);
}

const char *record_budget_answer_to_str(enum record_budget_answer a)
{
    switch (a) {
    case BUDGET_OK: return "ok";
    case BUDGET_RECORDS: return "records";
    case BUDGET_BYTES: return "bytes";
    }
    return "ok";
}

static bool spent(const struct record_budget *b, const struct budget_slot *s)
{
    return (b->max_records && s->records >= b->max_records) ||
           (b->max_bytes && s->bytes >= b->max_bytes);
}

void record_budget_limits(struct record_budget *b, unsigned *records, uint64_t *bytes)
{
    *records = b->max_records;
    *bytes = b->max_bytes;
}

static struct budget_slot *slot_of(struct record_budget *b, const struct client_id *client,
                                   time_t now)
{
    struct budget_slot *s = &b->slots[client_id_hash(client) % BUDGET_SLOTS];
    bool same = client_id_equal(&s->client, client);
    bool current = now - s->window_start < (time_t)b->window_s && now >= s->window_start;
    if (!same || !current) {
        if (!same && current && spent(b, s))
            return s;   /* a spent budget is not freed by a colliding client */
        s->client = *client;
        s->window_start = now;
        s->records = 0;
        s->bytes = 0;
    }
    return s;
}

enum record_budget_answer record_budget_take(struct record_budget *b,
                                             const struct client_id *client, uint64_t bytes,
                                             time_t now)
{
    pthread_mutex_lock(&b->lock);
    struct budget_slot *s = slot_of(b, client, now);
    enum record_budget_answer a = BUDGET_OK;
    if (b->max_records && s->records >= b->max_records)
        a = BUDGET_RECORDS;
    else if (b->max_bytes && s->bytes + bytes > b->max_bytes)   /* s->bytes <= max_bytes */
        a = BUDGET_BYTES;
    if (a == BUDGET_OK) {
        s->records++;
        s->bytes += bytes;
        b->kept++;
        b->kept_bytes += bytes;
    } else {
        b->refused[a]++;
    }
    pthread_mutex_unlock(&b->lock);
    return a;
}

void record_budget_render_metrics(struct record_budget *b, FILE *f)
{
    pthread_mutex_lock(&b->lock);
    fprintf(f, "# HELP butterfly_record_budget_kept_total Records of clients not signed in as "
               "students kept within their budget.\n"
               "# TYPE butterfly_record_budget_kept_total counter\n"
               "butterfly_record_budget_kept_total %llu\n"
               "# HELP butterfly_record_budget_kept_bytes_total Their bytes (source, verdict "
               "and a record's overhead).\n"
               "# TYPE butterfly_record_budget_kept_bytes_total counter\n"
               "butterfly_record_budget_kept_bytes_total %llu\n"
               "# HELP butterfly_record_budget_refused_total Records not kept: the client's "
               "budget of records or bytes was spent.\n"
               "# TYPE butterfly_record_budget_refused_total counter\n",
            (unsigned long long)b->kept, (unsigned long long)b->kept_bytes);
    for (int a = BUDGET_RECORDS; a <= BUDGET_BYTES; a++)
        fprintf(f, "butterfly_record_budget_refused_total{limit=\"%s\"} %llu\n",
                record_budget_answer_to_str((enum record_budget_answer)a),
                (unsigned long long)b->refused[a]);
    fprintf(f, "# HELP butterfly_record_budget_limit Each client's budget per window.\n"
               "# TYPE butterfly_record_budget_limit gauge\n"
               "butterfly_record_budget_limit{limit=\"records\"} %u\n"
               "butterfly_record_budget_limit{limit=\"bytes\"} %llu\n"
               "butterfly_record_budget_limit{limit=\"window_seconds\"} %u\n",
            b->max_records, (unsigned long long)b->max_bytes, b->window_s);
    pthread_mutex_unlock(&b->lock);
}
