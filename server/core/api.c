/* api.c - the served exercises' documents and the about document. */
#include "server/core/api.h"

#include <stdio.h>
#include <string.h>

#include "common/config.h"
#include "common/score.h"
#include "common/task.h"
#include "server/core/route.h"
#include "server/core/served.h"
#include "server/openapi_doc.h"

const char *api_openapi(size_t *len)
{
    /* one copy: the file in docs/, made a C string by scripts/embed.py */
    *len = sizeof openapi_doc - 1;
    return openapi_doc;
}

/* The addresses of exercise e: its document, its page, its submissions. */
static void urls_of(const struct exercise *e, char doc[96], char page[96], char submit[96])
{
    /* as the route table writes them (an id is one segment: they fit) */
    route_link(ROUTE_TASK, e->id, doc, 96);
    route_link(ROUTE_PAGE, e->id, page, 96);
    route_link(ROUTE_SUBMIT, e->id, submit, 96);
}

json_t *api_tasks(void)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < served_count(); i++) {
        const struct exercise *e = served_at(i);
        char doc[96], page[96], submit[96];
        urls_of(e, doc, page, submit);
        /* points: what a gradebook column of it holds (Deep Linking's line item) */
        if (json_array_append_new(list, json_pack(
                "{s:s, s:s, s:s, s:s?, s:i, s:b, s:s, s:s, s:i}", "id", e->id,
                "title", e->title, "subtitle", e->subtitle ? e->subtitle : "",
                "course", e->course, "order", e->order, "example", e->example,
                "url", doc, "page", page, "points", score_max_of(e))) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* One array of n numbers: values[0..n). */
static json_t *numbers(const float *values, int n)
{
    json_t *a = json_array();
    for (int k = 0; a && k < n; k++)
        json_array_append_new(a, json_real(values[k]));
    return a;
}

json_t *api_task(const struct exercise *e)
{
    json_t *api = json_array(), *visible = json_array(), *values = json_array();
    for (size_t i = 0; api && i < e->napi; i++)
        json_array_append_new(api, json_pack("{s:s, s:s, s:s}", "name", e->api[i].name,
                                             "type", e->api[i].type,
                                             "meaning", e->api[i].meaning));
    for (int p = 0; visible && p < e->in_planes; p++)
        json_array_append_new(visible, numbers(e->visible[p], e->in_n));
    for (size_t h = 0; values && h < e->nsweep; h++)
        json_array_append_new(values, json_integer(e->sweep[h]));
    char doc[96], page[96], submit[96];
    urls_of(e, doc, page, submit);
    /* "halves" and "hidden_per_half" are the sweep under the names the
     * butterfly's page (/) has always read: that page stays as it is */
    json_t *doc_json = json_pack("{s:s, s:s, s:s, s:s?, s:i, s:b, s:s, s:s, s:s, s:s, s:o, "
                     "s:{s:s, s:i, s:i}, s:{s:i, s:i}, s:{s:s, s:O}, s:o, s:i, "
                     "s:O, s:i, s:{s:f, s:f}, s:i, s:i, s:s, s:s}",
                     "id", e->id, "title", e->title, "subtitle", e->subtitle ? e->subtitle : "",
                     "course", e->course, "order", e->order, "example", e->example,
                     "brief", e->brief ? e->brief : "", "function", e->function,
                     "signature", e->signature, "starter", e->starter ? e->starter : "",
                     "api", api,
                     "input", "name", e->input, "n", e->in_n, "planes", e->in_planes,
                     "output", "n", e->out_n, "planes", e->out_planes,
                     "parameter", "name", e->param, "values", values,
                     "visible", visible, "hidden_per_value", e->hidden,
                     "halves", values, "hidden_per_half", e->hidden,
                     "tolerance", "atol", e->atol, "rtol", e->rtol,
                     "max_source_bytes", TASK_MAX_SOURCE, "loop_budget", (int)e->loop_budget,
                     "page", page, "submit_url", submit);
    json_decref(values);   /* the document holds it twice, by its own references */
    return doc_json;
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
