/*
 * store_location.h - which store a program uses, decided the same way by
 * the server, butterfly-admin and butterfly-batch.
 *
 * In order: --database URL if given ("sqlite:PATH", "postgresql://...",
 * "none"); else the SQLite file STORE_FILE_NAME in the state folder, which
 * is --state-dir DIR, else $BUTTERFLY_STATE_DIR, else $STATE_DIRECTORY
 * (what systemd's StateDirectory= sets; its first entry when it lists
 * several), else $XDG_STATE_HOME/DEFAULT_STATE_SUBDIR, else
 * $HOME/.local/state/DEFAULT_STATE_SUBDIR. The values are in
 * grader/common/defaults.h.
 */
#ifndef BUTTERFLY_STORE_LOCATION_H
#define BUTTERFLY_STORE_LOCATION_H

#include <stdbool.h>
#include <stddef.h>

#define STORE_URL_MAX 4096

struct store_location {
    char url[STORE_URL_MAX];    /* for store_open */
    const char *from;           /* where it came from, for the line printed at
                                   start: "--database", "--state-dir",
                                   "BUTTERFLY_STATE_DIR", "STATE_DIRECTORY",
                                   "XDG_STATE_HOME", "HOME"; static */
    char state_dir[STORE_URL_MAX];  /* the state folder; "" with --database */
};

/*
 * Resolves the store from the two options (either may be NULL) and the
 * environment, into *loc. Does not touch the file system: store_open
 * creates the file (and the folders on its way). False with
 * a reason in err when nothing names a place (no option, no variable, no
 * HOME) or a path is too long; *loc is then untouched. The variables are
 * read with getenv: call before starting threads that change them.
 */
bool store_location_resolve(const char *database, const char *state_dir,
                            struct store_location *loc, char *err, size_t errsz);

/*
 * Makes the state folder of loc if it is missing (0700, like the folders
 * on its way), then checks that it is the server's own: a folder (a link
 * to one is followed, as systemd's DynamicUser= makes), owned by this
 * process's effective user, writable by no other user and, unless
 * group_ok, not by its group either: whoever else may write there may
 * replace the records, the -wal beside them or the cookies' key. True
 * when it is, or when loc has no state folder (--database names the
 * store); else false with err naming the folder, what is wrong and what
 * to do. Touches nothing but the missing folders.
 */
bool store_location_claim(const struct store_location *loc, bool group_ok, char *err,
                          size_t errsz);

#endif
