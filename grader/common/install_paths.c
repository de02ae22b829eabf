/* install_paths.c - the worker and the page, relative to the running program. */
#include "common/install_paths.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config.h"

#define WORKER_NAME "butterfly-worker"
#define STATIC_SUBDIR "butterfly-grader/static"

struct install_layout install_paths_configured(void)
{
    /* realpath: the program's own path comes resolved from /proc, so the
     * build root must be too (a /work that is a link, say) */
    static char build_real[INSTALL_PATH_MAX];
    const char *build = realpath(BUTTERFLY_BUILD_ROOT, build_real) ? build_real : NULL;
    return (struct install_layout){
        .build_root = build,
        .source_root = BUTTERFLY_SOURCE_ROOT,
        .prefix = BUTTERFLY_PREFIX,
        .bindir = BUTTERFLY_BINDIR,
        .libexecdir = BUTTERFLY_LIBEXECDIR,
        .datadir = BUTTERFLY_DATADIR,
    };
}

/* Whether the folder of exe is a folder directly below root: where meson
 * puts the programs of a build tree (build/server, build/grader, ...).
 * An install under the build root (a DESTDIR there) is deeper: prefix/bin. */
static bool in_build_tree(const char *exe, const char *root)
{
    size_t n = root ? strlen(root) : 0;
    if (!exe || n == 0 || strncmp(exe, root, n) != 0 || exe[n] != '/')
        return false;
    const char *rest = exe + n + 1;              /* "server/butterfly-server" */
    const char *slash = strchr(rest, '/');
    return slash && slash > rest && !strchr(slash + 1, '/');
}

/* The number of path components in a relative path ("bin": 1, "a/b/": 2). */
static size_t components(const char *rel)
{
    size_t n = 0;
    for (const char *p = rel; *p; p++)
        if (*p != '/' && (p == rel || p[-1] == '/'))
            n++;
    return n;
}

/* The prefix a program at exe was installed in: its folder with bindir's
 * components taken off. False when exe is too short for that. */
static bool runtime_prefix(const char *exe, const char *bindir, char *out, size_t outsz)
{
    size_t len = strlen(exe);
    size_t up = components(bindir) + 1;          /* + 1: the program's own name */
    while (up > 0) {
        while (len > 0 && exe[len - 1] == '/')
            len--;
        if (len == 0)
            break;
        while (len > 0 && exe[len - 1] != '/')
            len--;
        up--;
    }
    /* what is left is the prefix; "" stands for the root, as "/usr" would
     * for /usr, since join() adds the slash */
    while (len > 0 && exe[len - 1] == '/')
        len--;
    if (up > 0 || exe[0] != '/' || len >= outsz)
        return false;
    memcpy(out, exe, len);
    out[len] = '\0';
    return true;
}

/* base/dir/leaf, or dir/leaf when dir is absolute. */
static bool join(const char *base, const char *dir, const char *leaf, char *out, size_t outsz)
{
    int n = dir[0] == '/' ? snprintf(out, outsz, "%s/%s", dir, leaf)
                          : snprintf(out, outsz, "%s/%s/%s", base, dir, leaf);
    return n >= 0 && (size_t)n < outsz;
}

bool install_paths_resolve(const struct install_layout *l, const char *exe,
                           enum install_item item, char *out, size_t outsz)
{
    if (in_build_tree(exe, l->build_root)) {
        int n = item == INSTALL_WORKER
            ? snprintf(out, outsz, "%s/grader/%s", l->build_root, WORKER_NAME)
            : snprintf(out, outsz, "%s/static", l->source_root);
        return n >= 0 && (size_t)n < outsz;
    }
    char prefix[INSTALL_PATH_MAX];
    if (!exe || l->bindir[0] == '/' || !runtime_prefix(exe, l->bindir, prefix, sizeof prefix))
        snprintf(prefix, sizeof prefix, "%s", l->prefix);
    return item == INSTALL_WORKER ? join(prefix, l->libexecdir, WORKER_NAME, out, outsz)
                                  : join(prefix, l->datadir, STATIC_SUBDIR, out, outsz);
}

bool install_paths_find(enum install_item item, char *out, size_t outsz)
{
    char exe[INSTALL_PATH_MAX];
    struct install_layout l = install_paths_configured();
    /* without /proc (a bare chroot) the configured prefix is all there is */
    bool known = realpath("/proc/self/exe", exe) != NULL;
    return install_paths_resolve(&l, known ? exe : NULL, item, out, outsz);
}
