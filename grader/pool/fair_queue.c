/* fair_queue.c - per-client FIFOs in a ring ordered by last service. */
#include "pool/fair_queue.h"

#include <stdlib.h>


#define BUCKETS 256
/* Clients whose last service is remembered after their queue emptied. A
 * closed-loop client (one request, its answer, the next) leaves the queue
 * after every job; without this it would come back as a newcomer and go
 * first. Past this many, the oldest is forgotten and counts as new. */
#define REMEMBERED 64

struct client {
    struct client_id key;
    struct job *head, *tail;
    unsigned queued;
    uint64_t served;            /* serial of its last job taken; 0: none remembered */
    struct client *ring_prev, *ring_next;   /* clients with jobs, in turn order */
    struct client *bucket_next;
};

struct fair_queue {
    struct client *buckets[BUCKETS];
    struct client *turn;        /* whose job goes next; NULL when empty */
    unsigned total, nclients;
    uint64_t serial;            /* jobs taken so far */
    struct {
        struct client_id key;
        uint64_t served;        /* 0: an empty slot */
    } remembered[REMEMBERED];
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

/* When key's last job was taken, if that is remembered; else 0. */
static uint64_t last_served(const struct fair_queue *q, const struct client_id *key)
{
    for (unsigned i = 0; i < REMEMBERED; i++)
        if (q->remembered[i].served && client_id_equal(&q->remembered[i].key, key))
            return q->remembered[i].served;
    return 0;
}

/* Remembers c's last service in its own slot, else in the oldest one. */
static void remember(struct fair_queue *q, const struct client *c)
{
    unsigned slot = 0;
    for (unsigned i = 0; i < REMEMBERED; i++) {
        if (q->remembered[i].served && client_id_equal(&q->remembered[i].key, &c->key)) {
            slot = i;
            break;
        }
        if (q->remembered[i].served < q->remembered[slot].served)
            slot = i;
    }
    q->remembered[slot].key = c->key;
    q->remembered[slot].served = c->served;
}

/*
 * A client joins the round before every client served more recently than
 * itself, after the others: the round stays ordered by last service, from
 * q->turn (served longest ago, or never) to q->turn->ring_prev (served
 * last). A client served long ago, or never, thus goes before the clients
 * that were just served, and after those already waiting that were served
 * before it.
 */
static struct client *join(struct fair_queue *q, const struct client_id *key)
{
    struct client *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->key = *key;
    c->served = last_served(q, key);
    unsigned b = bucket_of(key);
    c->bucket_next = q->buckets[b];
    q->buckets[b] = c;
    if (!q->turn) {
        c->ring_prev = c->ring_next = c;
        q->turn = c;
    } else {
        /* after the last client served no later than c; if none, c goes
         * first: after the last of the round, and its turn is next */
        struct client *after = q->turn->ring_prev;
        while (after->served > c->served && after != q->turn)
            after = after->ring_prev;
        bool first = after->served > c->served;
        if (first)
            after = q->turn->ring_prev;
        c->ring_prev = after;
        c->ring_next = after->ring_next;
        after->ring_next->ring_prev = c;
        after->ring_next = c;
        if (first)
            q->turn = c;
    }
    q->nclients++;
    return c;
}

/* A client with nothing queued leaves the round and the table; its last
 * service is remembered. */
static void leave(struct fair_queue *q, struct client *c)
{
    if (c->served)
        remember(q, c);
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
    /* served now, the latest of all: c's place, if it stays, is last */
    c->served = ++q->serial;
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
