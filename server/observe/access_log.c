/* access_log.c - the access log line, sanitized field by field. */
#include "server/observe/access_log.h"

#include <time.h>

char *access_log_sanitize(const char *s, char *out, size_t outsz)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    if (!s || !*s)
        s = "-";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c > ' ' && c < 0x7f && c != '\\') {
            if (n + 1 >= outsz)
                break;
            out[n++] = (char)c;
        } else {
            if (n + 4 >= outsz)
                break;
            out[n++] = '\\';
            out[n++] = 'x';
            out[n++] = hex[c >> 4];
            out[n++] = hex[c & 15];
        }
    }
    out[n] = '\0';
    return out;
}

void access_log_write(FILE *f, const struct access_log_entry *e)
{
    char when[32], client[CLIENT_ID_TEXT_MAX] = "-", method[64], path[512], verdict[64];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    char seed[32] = "-", wait[32] = "-";
    if (e->seed)
        snprintf(seed, sizeof seed, "seed=%llu", (unsigned long long)e->seed);
    if (e->client)
        client_id_format(e->client, client, sizeof client);
    if (e->wait_ms >= 0)
        snprintf(wait, sizeof wait, "wait=%.1fms", e->wait_ms);
    fprintf(f, "%s %s %s %s %u %.1fms %s %s %s%s%s\n", when,
            client,
            access_log_sanitize(e->method, method, sizeof method),
            access_log_sanitize(e->path, path, sizeof path), e->status, e->ms,
            access_log_sanitize(e->verdict, verdict, sizeof verdict), seed, wait,
            e->note ? " " : "", e->note ? e->note : "");
}
