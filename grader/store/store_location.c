/* store_location.c - which store a program uses (store_location.h). */
#include "store/store_location.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"

/* An environment variable's value, or NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

bool store_location_resolve(const char *database, const char *state_dir,
                            struct store_location *loc, char *err, size_t errsz)
{
    struct store_location l;
    memset(&l, 0, sizeof l);
    if (database) {
        if (!*database || strlen(database) >= sizeof l.url) {
            snprintf(err, errsz, "--database: give sqlite:PATH, postgresql://... or none");
            return false;
        }
        snprintf(l.url, sizeof l.url, "%s", database);
        l.from = "--database";
        *loc = l;
        return true;
    }
    char dir[STORE_URL_MAX];
    int n = -1;
    const char *v;
    if (state_dir && *state_dir) {
        n = snprintf(dir, sizeof dir, "%s", state_dir);
        l.from = "--state-dir";
    } else if ((v = env("BUTTERFLY_STATE_DIR"))) {
        n = snprintf(dir, sizeof dir, "%s", v);
        l.from = "BUTTERFLY_STATE_DIR";
    } else if ((v = env("STATE_DIRECTORY"))) {
        /* systemd lists one folder per StateDirectory= entry, colon-separated */
        n = snprintf(dir, sizeof dir, "%.*s", (int)strcspn(v, ":"), v);
        l.from = "STATE_DIRECTORY";
    } else if ((v = env("XDG_STATE_HOME"))) {
        n = snprintf(dir, sizeof dir, "%s/%s", v, DEFAULT_STATE_SUBDIR);
        l.from = "XDG_STATE_HOME";
    } else if ((v = env("HOME"))) {
        n = snprintf(dir, sizeof dir, "%s/.local/state/%s", v, DEFAULT_STATE_SUBDIR);
        l.from = "HOME";
    } else {
        snprintf(err, errsz, "no state folder: give --state-dir DIR or --database URL "
                             "(neither BUTTERFLY_STATE_DIR, STATE_DIRECTORY nor HOME is set)");
        return false;
    }
    if (n < 0 || (size_t)n >= sizeof dir
        || snprintf(l.url, sizeof l.url, "sqlite:%s/%s", dir, STORE_FILE_NAME)
               >= (int)sizeof l.url) {
        snprintf(err, errsz, "the state folder's path is too long");
        return false;
    }
    snprintf(l.state_dir, sizeof l.state_dir, "%s", dir);
    *loc = l;
    return true;
}
