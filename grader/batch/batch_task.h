/*
 * batch_task.h - the exercise a batch grades or exports (--task ID), as
 * its reports name it.
 */
#ifndef BUTTERFLY_BATCH_TASK_H
#define BUTTERFLY_BATCH_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "common/exercise/exercise.h"

struct batch_task {
    const char *id;          /* the records' task column, summary.json's "task" */
    const char *title;       /* reports' titles, Canvas's assignment column */
    const char *subtitle;    /* "" when not built in */
    const struct exercise *e;   /* NULL: not built in (records only) */
};

/*
 * The exercise `id` (NULL: the default, the butterfly). One not built in
 * is taken, titled by its id, only when `records_only` (the verdicts are
 * the stored ones: nothing is graded, so no definition is needed); else
 * false with the message in err, naming the built-in ids.
 */
bool batch_task_resolve(const char *id, bool records_only, struct batch_task *t, char *err,
                        size_t errsz);

#endif
