/* route.c - matching a path and a method against a row of the route table. */
#include "server/core/route.h"

#include "server/core/request.h"

#include <stdio.h>
#include <string.h>

bool route_matches(const struct route_row *row, const char *path)
{
    /* one walk over both, no strchr and strcmp of every row: the lookup
     * runs for every request, and most rows differ within a few bytes */
    const char *p = row->path;
    while (*p && *p != '{' && *p == *path) {
        p++;
        path++;
    }
    if (*p != '{')
        return *p == *path;   /* exact: both ended together */
    if (row->needs & PATH_ANY_REST)
        return true;
    /* any one segment is a name to look up (and 404 alike): only the
     * shape of a path is checked here */
    return *path && !strchr(path, '/');
}

bool route_allows(const struct route_row *row, const char *method, char *allow, size_t allowsz)
{
    static const struct { unsigned bit; const char *name; } methods[] = {
        { METHOD_GET, "GET" }, { METHOD_HEAD, "HEAD" }, { METHOD_POST, "POST" },
        { METHOD_DELETE, "DELETE" },
    };
    enum { N = sizeof methods / sizeof methods[0] };
    for (size_t i = 0; i < N; i++)
        if ((row->methods & methods[i].bit) && !strcmp(method, methods[i].name))
            return true;
    /* the Allow header is written only for the 405 that carries it: a
     * request the row allows (every submission) formats nothing */
    size_t used = 0;
    if (allowsz)
        allow[0] = '\0';
    for (size_t i = 0; i < N; i++) {
        if (!(row->methods & methods[i].bit))
            continue;
        int w = snprintf(allow + used, allowsz > used ? allowsz - used : 0, "%s%s",
                         used ? ", " : "", methods[i].name);
        if (w > 0)
            used += (size_t)w;
    }
    return false;
}

size_t route_body_max(const struct route_row *row, const char *type)
{
    if (row->body_max_text && request_body_kind(type) == BODY_PLAIN)
        return row->body_max_text;
    return row->body_max;
}
