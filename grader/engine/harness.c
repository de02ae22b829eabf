/* harness.c - splices a body into the embedded harness template. */
#include "engine/harness.h"

#include <stdlib.h>
#include <string.h>

#include "engine/harness_template.h"

#define BODY_MARKER "\n@BODY@\n"

char *harness_assemble(const char *body, size_t len, size_t *out_len)
{
    const char *mark = strstr(harness_template, BODY_MARKER);
    if (!mark)
        return NULL;    /* the template is built in: tests catch this */
    size_t head = (size_t)(mark - harness_template) + 1;  /* keep the newline */
    const char *tail = mark + strlen(BODY_MARKER) - 1;     /* from the newline */
    size_t tail_len = strlen(tail);

    /* The newline after the body ends a trailing // comment or a line
     * without one before the harness's closing brace. */
    size_t total = head + len + tail_len;
    char *out = malloc(total + 1);
    if (!out)
        return NULL;
    memcpy(out, harness_template, head);
    memcpy(out + head, body, len);
    memcpy(out + head + len, tail, tail_len);
    out[total] = '\0';
    *out_len = total;
    return out;
}
