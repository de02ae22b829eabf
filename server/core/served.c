/* served.c - the exercises this server serves (served.h). */
#include "server/core/served.h"

#include <stdio.h>
#include <string.h>

#include "common/defaults.h"

static const struct exercise *set[MAX_SERVED_EXERCISES];
static size_t count;
static bool chosen;   /* false: every built-in exercise, until served_select */

/* The registry's exercises, all of them, when nothing was chosen. */
static void choose_all(void)
{
    count = 0;
    for (size_t i = 0; i < exercise_count() && count < MAX_SERVED_EXERCISES; i++)
        set[count++] = exercise_at(i);
    chosen = true;
}

/* Whether the item list[0..n) names e's id. */
static bool names(const char *item, size_t n, const struct exercise *e)
{
    return strlen(e->id) == n && !strncmp(item, e->id, n);
}

bool served_select(const char *list, char *err, size_t errsz)
{
    if (exercise_count() > MAX_SERVED_EXERCISES) {
        snprintf(err, errsz, "%zu exercises are built in; a server serves at most %u",
                 exercise_count(), MAX_SERVED_EXERCISES);
        return false;
    }
    if (!list || !*list) {
        choose_all();
        return true;
    }
    bool want[MAX_SERVED_EXERCISES] = { false };
    for (const char *p = list;;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, ",");
        size_t m = n;
        while (m && p[m - 1] == ' ')
            m--;
        if (!m) {
            snprintf(err, errsz, "--exercises \"%.200s\" has an empty item (give ids "
                     "separated by commas)", list);
            return false;
        }
        size_t i = 0;
        while (i < exercise_count() && !names(p, m, exercise_at(i)))
            i++;
        if (i == exercise_count()) {
            /* the id as given, cut short (the operator's text), then the
             * ids there are, as far as err holds them */
            int w = snprintf(err, errsz, "--exercises: no exercise \"%.*s\" is built in "
                             "(built in:", (int)(m > 64 ? 64 : m), p);
            size_t used = w > 0 ? (size_t)w : 0;
            for (size_t k = 0; k < exercise_count() && used < errsz; k++) {
                w = snprintf(err + used, errsz - used, "%s %s", k ? "," : "",
                             exercise_at(k)->id);
                used += w > 0 ? (size_t)w : 0;
            }
            if (used < errsz)
                snprintf(err + used, errsz - used, ")");
            return false;
        }
        want[i] = true;
        if (!p[n])
            break;
        p += n + 1;
    }
    count = 0;
    for (size_t i = 0; i < exercise_count(); i++)
        if (want[i])
            set[count++] = exercise_at(i);
    chosen = true;
    return true;
}

size_t served_count(void)
{
    if (!chosen)
        choose_all();
    return count;
}

const struct exercise *served_at(size_t i)
{
    return i < served_count() ? set[i] : NULL;
}

const struct exercise *served_find(const char *id)
{
    for (size_t i = 0; id && i < served_count(); i++)
        if (!strcmp(set[i]->id, id))
            return set[i];
    return NULL;
}
