/* api.h - the JSON documents of the API that do not grade. */
#ifndef BUTTERFLY_API_H
#define BUTTERFLY_API_H

#include <jansson.h>

#include "common/exercise/exercise.h"
#include "pool/pool.h"
#include "server/core/server.h"

/* GET /api/tasks: the served exercises (served.h) in course order, each
 * its id, title, subtitle, course, order, example, url (its document),
 * page and points. New reference; NULL on OOM. */
json_t *api_tasks(void);

/* GET /api/tasks/{id}: what exercise e's page needs (its title, brief,
 * kernel, API table, starter, sizes, sweep, visible input, tolerances,
 * bounds and addresses), from its definition. New reference; NULL on OOM. */
json_t *api_task(const struct exercise *e);

/* GET /healthz: ok while the pool can grade (pool_stats.healthy). New reference. */
json_t *api_health(const struct pool_stats *ps);

/* GET /api/about: version, device, workers, queue, admission, limits. New reference. */
json_t *api_about(const struct pool_stats *ps, const struct server_config *c);

/* GET /api/openapi.json: docs/openapi.json, embedded at build time. A
 * static string; *len gets its length. */
const char *api_openapi(size_t *len);

#endif
