/*
 * install_paths.h - where a program finds the worker program and the
 * page's files.
 *
 * An installed program looks beside itself: from its own location
 * (/proc/self/exe) it walks up its bindir to the prefix it was installed
 * in, then down to libexecdir or datadir. So an installed tree can be
 * moved as a whole, and no path into the source or build tree is ever
 * used by an installed program. Only a program that runs from the build
 * tree (one folder below the build root, as meson puts them) uses the
 * build tree's worker and the source tree's page.
 *
 * The environment (BUTTERFLY_WORKER, BUTTERFLY_STATIC_DIR) and the
 * programs' options override all of this; that is the callers' part.
 */
#ifndef BUTTERFLY_INSTALL_PATHS_H
#define BUTTERFLY_INSTALL_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* Enough for any path these functions write (Linux's PATH_MAX; named here
 * because a folder of this project has a limits.h of its own). */
#define INSTALL_PATH_MAX 4096

enum install_item {
    INSTALL_WORKER,        /* the butterfly-worker program */
    INSTALL_STATIC_DIR,    /* the folder of the exercise page */
};

/* The layout a build was configured with. The *dir members are as meson
 * gives them: relative to the prefix, or absolute when set outside it. */
struct install_layout {
    const char *build_root;    /* the build tree (a real path), or NULL */
    const char *source_root;
    const char *prefix;
    const char *bindir;
    const char *libexecdir;
    const char *datadir;
};

/* This build's layout (config.h), with build_root resolved to its real
 * path now, or NULL when the build tree is gone. */
struct install_layout install_paths_configured(void);

/*
 * The path of `item` for a program whose real path is `exe` (NULL when
 * unknown), written into out. A program one folder below l->build_root
 * gets the build tree's; any other gets the prefix found by taking
 * l->bindir's components off its folder, or l->prefix when exe is NULL or
 * bindir is absolute. False when out is too small. Pure: reads no file.
 */
bool install_paths_resolve(const struct install_layout *l, const char *exe,
                           enum install_item item, char *out, size_t outsz);

/* install_paths_resolve for the running program and this build. */
bool install_paths_find(enum install_item item, char *out, size_t outsz);

#endif
