/* route.c - matching a path and a method against a row of the route table. */
#include "server/core/route.h"

#include "server/core/request.h"

#include <stdio.h>
#include <string.h>

bool route_matches(const struct route_row *row, const char *path)
{
    /* the lookup runs for every request down the table: the byte after
     * the first '/' tells most rows apart before any string call (a row
     * whose first segment is its "{name}" has no such byte to compare) */
    if (path[0] != row->path[0] ||
        (path[0] && row->path[1] != '{' && path[1] != row->path[1]))
        return false;
    const char *brace = strchr(row->path, '{');
    if (!brace)
        return !strcmp(path, row->path);
    size_t n = (size_t)(brace - row->path);
    if (strncmp(path, row->path, n) != 0)
        return false;
    const char *rest = path + n;
    if (row->needs & PATH_ANY_REST)
        return true;
    /* any one segment is a name to look up (and 404 alike): only the
     * shape of a path is checked here */
    return *rest && !strchr(rest, '/');
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

size_t route_body_max(const struct route_row *row, enum body_kind kind)
{
    if (row->body_max_text && kind == BODY_PLAIN)
        return row->body_max_text;
    return row->body_max;
}
