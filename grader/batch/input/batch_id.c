/* batch_id.c - student ids: which are usable, and their names on disk. */
#include "batch/input/batch_id.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gradebook/feedback.h"
#include "gradebook/student_id.h"

const char *batch_id_problem(const char *id, size_t len)
{
    return gradebook_id_problem(id, len);
}

void batch_id_key(const char *id, size_t len, char key[BATCH_KEY_MAX])
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    if (len > BATCH_ID_MAX)
        len = BATCH_ID_MAX;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)id[i];
        bool keep = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || (c == '.' && i > 0);
        if (keep) {
            key[o++] = (char)c;
        } else {
            key[o++] = '%';
            key[o++] = hex[c >> 4];
            key[o++] = hex[c & 15];
        }
    }
    key[o] = '\0';
}

char *batch_display(const char *s, size_t len)
{
    return gradebook_display(s, len);
}

void batch_display_cut(char *s, size_t max)
{
    gradebook_text_cut(s, max);
}
