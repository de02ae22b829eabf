/* store_location.c - which store a program uses (store_location.h). */
#include "store/store_location.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* mkdir -p with mode 0700 for every folder it makes; 0 or an errno. */
static int make_folders(const char *path)
{
    char dir[STORE_URL_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = '\0';
    for (char *p = dir + 1;; p++) {
        bool end = *p == '\0';
        if (!end && *p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST)
            return errno;
        if (end)
            return 0;
        *p = '/';
    }
}

bool store_location_claim(const struct store_location *loc, bool group_ok, char *err,
                          size_t errsz)
{
    const char *dir = loc->state_dir;
    if (!*dir)
        return true;
    /* "/var/lib/x (from STATE_DIRECTORY)": where the name came from too */
    char name[STORE_URL_MAX + 64];
    snprintf(name, sizeof name, "%s (from %s%s)", dir, loc->from && *loc->from != '-' ? "$" : "",
             loc->from ? loc->from : "?");
    struct stat st;
    if (stat(dir, &st) != 0) {
        int e = errno == ENOENT ? make_folders(dir) : errno;
        if (e || stat(dir, &st) != 0) {
            snprintf(err, errsz, "the state folder %s cannot be made: %s", name,
                     strerror(e ? e : errno));
            return false;
        }
    }
    /* the checks are made on the folder as found, the one just made
     * included: another user may have made it first in a parent it can
     * write to */
    unsigned mode = (unsigned)st.st_mode & 07777;
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errsz, "the state folder %s is not a folder", name);
        return false;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errsz, "the state folder %s belongs to uid %u, not to the server's user "
                             "(uid %u): another user could replace the records; give the "
                             "server a folder of its own (chown it to uid %u, or another "
                             "--state-dir)", name, (unsigned)st.st_uid, (unsigned)geteuid(),
                 (unsigned)geteuid());
        return false;
    }
    if (mode & S_IWOTH) {
        snprintf(err, errsz, "the state folder %s is writable by every user (mode %04o): "
                             "anyone could replace the records; make it the server's own "
                             "(chmod 0700 %s)", name, mode, dir);
        return false;
    }
    if ((mode & S_IWGRP) && !group_ok) {
        snprintf(err, errsz, "the state folder %s is writable by its group (mode %04o): "
                             "chmod g-w %s, or --state-dir-group-ok if the group is meant "
                             "to share it", name, mode, dir);
        return false;
    }
    return true;
}
