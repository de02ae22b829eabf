/* exercise_validate.c - the build's check of exercises/: every listed
 * folder is loaded from disk as the registry will load it embedded, so a
 * definition that does not load fails the build with the loader's message
 * instead of a server that cannot start.
 *
 * usage: exercise_validate DIR...   (exit 0: every DIR loads; 1: not) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/exercise/exercise_dir.h"
#include "common/exercise/exercise_load.h"

int main(int argc, char **argv)
{
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        char err[EX_LOAD_MAX_ERROR];
        struct exercise *e = exercise_dir_load(argv[i], err, sizeof err);
        if (!e) {
            fprintf(stderr, "%s\n", err);
            bad = 1;
            continue;
        }
        /* two folders of one id: the registry would serve only the first */
        for (int j = 1; j < i; j++)
            if (strcmp(argv[j], argv[i]) == 0) {
                fprintf(stderr, "%s: listed twice\n", argv[i]);
                bad = 1;
            }
        exercise_load_free(e);
    }
    return bad;
}
