/* route.c - matching a path and a method against a row of the route table. */
#include "server/core/route.h"

#include "server/core/request.h"

#include <stdio.h>
#include <string.h>

/* The length of the segment at p (up to '/' or the end). */
static size_t segment_len(const char *p)
{
    return strcspn(p, "/");
}

bool route_matches(const struct route_row *row, const char *path)
{
    /* the lookup runs for every request down the table: the byte after
     * the first '/' tells most rows apart before any string call (a row
     * whose first segment is its "{name}" has no such byte to compare) */
    if (path[0] != row->path[0] ||
        (path[0] && row->path[1] != '{' && path[1] != row->path[1]))
        return false;
    const char *pat = row->path, *p = path;
    /* segment by segment: a "{name}" one stands for any one non-empty
     * segment (any one is a name to look up, and 404 alike: only the
     * shape of a path is checked here) */
    for (;;) {
        if (*pat == '{') {
            size_t n = segment_len(p);
            pat += segment_len(pat);
            if (!*pat && (row->needs & PATH_ANY_REST))
                return true;   /* the rest, whatever it is: the handler names it */
            if (n == 0)
                return false;
            p += n;
        } else {
            /* the same n bytes, and the path's segment ends there too
             * (strncmp stops at a shorter path's end): one scan of the
             * row's segment, none of the path's */
            size_t n = segment_len(pat);
            if (strncmp(pat, p, n) != 0 || (p[n] != '/' && p[n] != '\0'))
                return false;
            pat += n;
            p += n;
        }
        if (!*pat || !*p)
            return !*pat && !*p;
        /* both at a '/': on to the next segment */
        pat++;
        p++;
    }
}

bool route_param(const struct route_row *row, const char *path, char *out, size_t outsz)
{
    const char *pat = row->path, *p = path;
    if (outsz)
        out[0] = '\0';
    if (!route_matches(row, path))
        return false;
    while (*pat && *pat != '{') {
        /* the fixed segments before the first "{name}" are the path's own */
        size_t n = segment_len(pat);
        pat += n;
        p += n;
        if (*pat == '/') {
            pat++;
            p++;
        }
    }
    if (!*pat)
        return false;
    size_t n = segment_len(p);
    if (n >= outsz)
        return false;
    memcpy(out, p, n);
    out[n] = '\0';
    return true;
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

/* The table route_link reads: set once at the start, before any thread
 * that asks (routes_start), and never changed after. */
static const struct route_row *link_rows;
static size_t link_n;

void route_links_set(const struct route_row *rows, size_t n)
{
    link_rows = rows;
    link_n = n;
}

bool route_link(enum route route, const char *param, char *out, size_t outsz)
{
    if (outsz)
        out[0] = '\0';
    if (param && (!*param || strchr(param, '/')))
        return false;
    for (size_t i = 0; i < link_n; i++) {
        const struct route_row *row = &link_rows[i];
        const char *brace = strchr(row->path, '{');
        if (row->route != route || !brace != !param)
            continue;
        int n = brace ? snprintf(out, outsz, "%.*s%s%s", (int)(brace - row->path), row->path,
                                 param, brace + segment_len(brace))
                      : snprintf(out, outsz, "%s", row->path);
        if (n >= 0 && (size_t)n < outsz)
            return true;
        if (outsz)
            out[0] = '\0';
        return false;
    }
    return false;
}
