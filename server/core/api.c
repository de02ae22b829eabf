/* api.c - the task, the task list and the about document. */
#include "server/core/api.h"

#include <string.h>

#include "common/config.h"
#include "common/score.h"
#include "common/task.h"
#include "server/openapi_doc.h"

const char *api_openapi(size_t *len)
{
    /* one copy: the file in docs/, made a C string by scripts/embed.py */
    *len = sizeof openapi_doc - 1;
    return openapi_doc;
}

json_t *api_tasks(void)
{
    const struct task *t = &task_butterfly;
    /* points: what a gradebook column of it holds (Deep Linking's line item) */
    return json_pack("[{s:s, s:s, s:s, s:s, s:i}]", "id", t->id, "title", t->title,
                     "subtitle", t->subtitle, "url", "/api/tasks/butterfly", "points", SCORE_MAX);
}

json_t *api_task_butterfly(void)
{
    const struct task *t = &task_butterfly;
    json_t *api = json_array();
    for (const struct task_api_name *n = t->api; n->name; n++)
        json_array_append_new(api, json_pack("{s:s, s:s, s:s}", "name", n->name,
                                             "type", n->type, "meaning", n->meaning));
    json_t *visible = json_array();
    json_t *halves = json_array();
    for (int p = 0; p < TASK_PLANES; p++) {
        json_t *plane = json_array();
        for (int k = 0; k < TASK_N; k++)
            json_array_append_new(plane, json_real(t->visible[p][k]));
        json_array_append_new(visible, plane);
    }
    for (int h = 0; h < TASK_NHALVES; h++)
        json_array_append_new(halves, json_integer(t->halves[h]));
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:i, s:{s:f, s:f}, s:i, s:i, s:s}",
                     "id", t->id, "title", t->title, "subtitle", t->subtitle,
                     "signature", t->signature, "starter", t->starter,
                     "api", api, "visible", visible, "halves", halves,
                     "hidden_per_half", TASK_HIDDEN,
                     "tolerance", "atol", t->atol, "rtol", t->rtol,
                     "max_source_bytes", TASK_MAX_SOURCE, "loop_budget", (int)t->loop_budget,
                     "submit_url", "/api/tasks/butterfly/submissions");
}

json_t *api_health(const struct pool_stats *ps)
{
    return json_pack("{s:s, s:i, s:i, s:i}", "status", ps->healthy ? "ok" : "unavailable",
                     "workers_ready", (int)ps->ready, "workers_starting", (int)ps->starting,
                     "queued", (int)ps->queued);
}

json_t *api_about(const struct pool_stats *ps, const struct server_config *c)
{
    return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:i, s:i, s:i}, s:{s:i, s:i, s:i}, "
                     "s:{s:i, s:i, s:f, s:f}, s:{s:i, s:i, s:i, s:i}}",
                     "name", "butterfly-grader", "version", BUTTERFLY_VERSION,
                     "device", "name", ps->device_name,
                     "type", ps->device_name[0] ? device_type_to_str(ps->device_type) : "",
                     "workers", "configured", (int)ps->workers, "ready", (int)ps->ready,
                     "busy", (int)ps->busy,
                     "queue", "length", (int)ps->queued, "capacity", (int)ps->queue_length,
                     "clients", (int)ps->queued_clients,
                     "admission", "per_client_queue", (int)c->per_client_queue,
                     "max_wait_ms", (int)c->max_wait_ms,
                     "expected_wait_ms", ps->expected_wait_ms, "mean_job_ms", ps->mean_job_ms,
                     "limits", "max_source_bytes", TASK_MAX_SOURCE,
                     "deadline_ms", (int)c->deadline_ms,
                     "max_connections", (int)c->max_connections,
                     "loop_budget", (int)task_butterfly.loop_budget);
}
