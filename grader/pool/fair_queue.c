/* fair_queue.c - per-client FIFOs in a round-robin ring. */
#include "pool/fair_queue.h"

#include <stdlib.h>


#define BUCKETS 256

struct client {
    struct client_id key;
    struct job *head, *tail;
    unsigned queued;
    struct client *ring_prev, *ring_next;   /* clients with jobs, in turn order */
    struct client *bucket_next;
};

struct fair_queue {
    struct client *buckets[BUCKETS];
    struct client *turn;        /* whose job goes next; NULL when empty */
    unsigned total, nclients;
};

static unsigned bucket_of(const struct client_id *key)
{
    return (unsigned)(client_id_hash(key) % BUCKETS);
}

static struct client *find(const struct fair_queue *q, const struct client_id *key)
{
    for (struct client *c = q->buckets[bucket_of(key)]; c; c = c->bucket_next)
        if (client_id_equal(&c->key, key))
            return c;
    return NULL;
}

struct fair_queue *fair_queue_new(void)
{
    return calloc(1, sizeof(struct fair_queue));
}

void fair_queue_free(struct fair_queue *q)
{
    if (!q)
        return;
    /* clients live only while they have jobs, so an empty queue has none */
    free(q);
}

/* A client joins the round last: just before the one whose turn is next. */
static struct client *join(struct fair_queue *q, const struct client_id *key)
{
    struct client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->key = *key;
    unsigned b = bucket_of(key);
    c->bucket_next = q->buckets[b];
    q->buckets[b] = c;
    if (!q->turn) {
        c->ring_prev = c->ring_next = c;
        q->turn = c;
    } else {
        c->ring_next = q->turn;
        c->ring_prev = q->turn->ring_prev;
        c->ring_prev->ring_next = c;
        q->turn->ring_prev = c;
    }
    q->nclients++;
    return c;
}

/* A client with nothing queued leaves the round and the table. */
static void leave(struct fair_queue *q, struct client *c)
{
    if (c->ring_next == c) {
        q->turn = NULL;
    } else {
        c->ring_prev->ring_next = c->ring_next;
        c->ring_next->ring_prev = c->ring_prev;
        if (q->turn == c)
            q->turn = c->ring_next;
    }
    struct client **pp = &q->buckets[bucket_of(&c->key)];
    while (*pp != c)
        pp = &(*pp)->bucket_next;
    *pp = c->bucket_next;
    q->nclients--;
    free(c);
}

bool fair_queue_push(struct fair_queue *q, struct job *job, bool first)
{
    struct client *c = find(q, &job->client);
    if (!c && !(c = join(q, &job->client)))
        return false;
    if (first) {
        job->next = c->head;
        c->head = job;
        if (!c->tail)
            c->tail = job;
    } else {
        job->next = NULL;
        if (c->tail)
            c->tail->next = job;
        else
            c->head = job;
        c->tail = job;
    }
    c->queued++;
    q->total++;
    return true;
}

/* Unlinks job (whose predecessor in c's list is prev, or NULL). */
static void unlink_job(struct fair_queue *q, struct client *c, struct job *prev, struct job *job)
{
    if (prev)
        prev->next = job->next;
    else
        c->head = job->next;
    if (c->tail == job)
        c->tail = prev;
    job->next = NULL;
    c->queued--;
    q->total--;
    if (c->queued == 0)
        leave(q, c);
}

struct job *fair_queue_pop(struct fair_queue *q)
{
    struct client *c = q->turn;
    if (!c)
        return NULL;
    struct job *job = c->head;
    q->turn = c->ring_next;     /* the next client's turn, whatever happens to c */
    unlink_job(q, c, NULL, job);
    return job;
}

struct job *fair_queue_remove(struct fair_queue *q, uint64_t id)
{
    for (unsigned b = 0; b < BUCKETS; b++) {
        for (struct client *c = q->buckets[b]; c; c = c->bucket_next) {
            struct job *prev = NULL;
            for (struct job *j = c->head; j; prev = j, j = j->next) {
                if (j->id == id) {
                    unlink_job(q, c, prev, j);
                    return j;
                }
            }
        }
    }
    return NULL;
}

unsigned fair_queue_total(const struct fair_queue *q)
{
    return q->total;
}

unsigned fair_queue_of(const struct fair_queue *q, const struct client_id *client)
{
    struct client_id local;
    client_id_local(&local);
    const struct client *c = find(q, client ? client : &local);
    return c ? c->queued : 0;
}

unsigned fair_queue_clients(const struct fair_queue *q)
{
    return q->nclients;
}
