/* batch_task.c - the exercise of a batch (batch_task.h). */
#include "batch/batch_task.h"

#include "store/store_choose.h"

#include <stdio.h>
#include <string.h>

/* Appends the built-in ids to err after what it holds. */
static void list_ids(char *err, size_t errsz)
{
    for (size_t i = 0; i < exercise_count(); i++) {
        size_t len = strlen(err);
        if (len + 1 >= errsz)
            return;
        snprintf(err + len, errsz - len, "%s%s", i ? ", " : "", exercise_at(i)->id);
    }
}

bool batch_task_resolve(const char *id, bool records_only, struct batch_task *t, char *err,
                        size_t errsz)
{
    const struct exercise *e = id ? exercise_find(id) : exercise_default();
    if (e) {
        *t = (struct batch_task){ e->id, e->title, e->subtitle ? e->subtitle : "", e };
        return true;
    }
    if (records_only && store_task_ok(id)) {
        /* an exercise dropped from the build still has its records */
        *t = (struct batch_task){ id, id, "", NULL };
        return true;
    }
    snprintf(err, errsz, "--task '%s' is no exercise of this build (built in: ", id);
    list_ids(err, errsz);
    size_t len = strlen(err);
    if (len + 1 < errsz)
        snprintf(err + len, errsz - len, ")");
    return false;
}
