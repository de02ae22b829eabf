/* submission.h - POST /api/tasks/{id}/submissions: a kernel graded by the
 * pool for the served exercise {id} (404 unknown_exercise for one not
 * served, before its body is read), answered when its verdict comes (or
 * at once, 202, with ?wait=false). */
#ifndef BUTTERFLY_SUBMISSION_H
#define BUTTERFLY_SUBMISSION_H

#include "server/core/http.h"

/* Checks a submission's exercise and headers before any of its body is read. */
enum MHD_Result submission_begin(struct request *r);

/* The body is complete: queue the job (suspending the connection) or refuse. */
enum MHD_Result submission_finish(struct request *r);

/* The connection was resumed: answer with the verdict or the refusal. */
enum MHD_Result submission_answer(struct request *r);

/* The request is over: count a verdict nobody received, release the job's
 * result. */
void submission_release(struct request *r);

/* conn_gone_fn for the watcher: the client of job id hung up. */
void submission_client_gone(uint64_t id, void *arg);

#endif
