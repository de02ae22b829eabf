/*
 * fair_queue.h - jobs waiting for a worker, one queue per client, served
 * in turn, the client served longest ago first.
 *
 * A class shares the workers: one client that submits a hundred jobs must
 * not make another client's one job wait behind all hundred. Each client
 * (an address in binary, common/client_id.h) has its own FIFO, and the next job
 * always comes from the client whose last job was taken longest ago (or
 * never): clients that keep jobs queued are served round-robin, and a job
 * waits for at most one job of every other client with jobs queued. A
 * client that comes back after a while (a student's next submission) goes
 * before those that were just served (a flood of one request after
 * another), not behind all of them. The last service of the 64 clients
 * served most recently is remembered after their queue empties. Not
 * thread-safe: the pool holds its lock around every call.
 */
#ifndef BUTTERFLY_FAIR_QUEUE_H
#define BUTTERFLY_FAIR_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "pool/job.h"

struct fair_queue;

/* A new empty queue; NULL when out of memory. */
struct fair_queue *fair_queue_new(void);

/* Frees the queue; it must be empty (jobs are not its to free). Accepts NULL. */
void fair_queue_free(struct fair_queue *q);

/*
 * Appends job to the queue of job->client (at its head when `first`, for a
 * retry). A client with nothing queued joins the round before the clients
 * served after it, after those served before it or never. False
 * when out of memory (the job is then not queued).
 */
bool fair_queue_push(struct fair_queue *q, struct job *job, bool first);

/* Takes the next job: the head of the queue of the client served longest
 * ago; NULL when all queues are empty. */
struct job *fair_queue_pop(struct fair_queue *q);

/* Takes the job with this id out of its queue; NULL when it is not queued. */
struct job *fair_queue_remove(struct fair_queue *q, uint64_t id);

/* Jobs queued in all, and for one client. */
unsigned fair_queue_total(const struct fair_queue *q);
unsigned fair_queue_of(const struct fair_queue *q, const struct client_id *client);

/* Clients with at least one job queued. */
unsigned fair_queue_clients(const struct fair_queue *q);

#endif
