/*
 * batch_input_dir.c - a directory of submissions: each entry is one
 * student, either a file (the id is its name without the extension) or a
 * folder (the id is its name) holding the kernel file.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/input/batch_input.h"

static bool has_kernel_extension(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot && dot != name && (!strcasecmp(dot, ".glsl") || !strcasecmp(dot, ".comp"));
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Picks the kernel file in a student's folder: the one entry that is not
 * hidden and not a folder, else the one .glsl or .comp file among them.
 * Anything else is refused, naming what the folder holds (sorted, so the
 * reason is the same on every run).
 */
static bool scan_folder(int dir_fd, const char *folder, struct batch_input *e)
{
    int fd = openat(dir_fd, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        return batch_input_refuse(e, "cannot open the folder: %s", strerror(saved));
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool ok = true, too_many = false;
    struct dirent *de;
    while (ok && (de = readdir(d))) {
        if (de->d_name[0] == '.')
            continue;
        struct stat st;
        if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
            continue;
        if (n == BATCH_MAX_FOLDER_FILES) {
            too_many = true;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                ok = false;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(de->d_name)))
            ok = false;
        else
            n++;
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, compare_names);
    size_t nkernels = 0;
    const char *kernel = NULL;
    for (size_t i = 0; i < n; i++)
        if (has_kernel_extension(names[i])) {
            nkernels++;
            kernel = names[i];
        }
    const char *pick = NULL;
    if (!ok) {
        /* out of memory: the caller says so */
    } else if (too_many) {
        ok = batch_input_refuse(e, "the folder holds more than %d files", BATCH_MAX_FOLDER_FILES);
    } else if (n == 0) {
        ok = batch_input_refuse(e, "the folder holds no kernel file");
    } else if (n == 1) {
        pick = names[0];
    } else if (nkernels == 1) {
        pick = kernel;
    } else {
        char list[256] = "";
        size_t len = 0;
        for (size_t i = 0; i < n && i < 5 && len < sizeof list; i++) {
            char *shown = batch_display(names[i], strlen(names[i]));
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                    shown ? shown : "?");
            free(shown);
        }
        ok = batch_input_refuse(e, "the folder holds %zu files and %s (%s%s): keep one kernel file",
                                n, nkernels ? "several .glsl or .comp files"
                                            : "no .glsl or .comp file",
                                list, n > 5 ? ", ..." : "");
    }
    if (ok && pick) {
        char *shown = batch_display(pick, strlen(pick));
        char *loc = NULL;
        e->folder = strdup(folder);
        e->file = strdup(pick);
        ok = shown && e->folder && e->file && asprintf(&loc, "%s/%s", e->location, shown) >= 0;
        if (ok) {
            free(e->location);
            e->location = loc;
        }
        free(shown);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return ok;
}

bool batch_input_dir_load(const struct batch_input_options *o, struct batch_inputs *in,
                          char *err, size_t errsz)
{
    in->dir_fd = open(o->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (in->dir_fd < 0) {
        snprintf(err, errsz, "cannot open the folder %s: %s", o->path, strerror(errno));
        return false;
    }
    int fd = dup(in->dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        snprintf(err, errsz, "cannot read the folder %s: %s", o->path, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *de;
    /* errno tells readdir's end from its failure */
    while (ok && (errno = 0, de = readdir(d))) {
        const char *name = de->d_name;
        if (name[0] == '.') {
            /* ".", "..", and hidden files (.DS_Store, .git) are not submissions */
            if (strcmp(name, ".") && strcmp(name, ".."))
                in->hidden++;
            continue;
        }
        struct stat st;
        bool have_stat = fstatat(in->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        int stat_errno = errno;
        if (have_stat && o->skip_ino && st.st_dev == o->skip_dev && st.st_ino == o->skip_ino) {
            in->hidden++;   /* the output folder inside the input folder */
            continue;
        }
        bool folder = have_stat && S_ISDIR(st.st_mode);
        /* a file's id is its name without the last extension */
        size_t id_len = strlen(name);
        const char *dot = strrchr(name, '.');
        if (!folder && dot)
            id_len = (size_t)(dot - name);
        struct batch_input *e = batch_inputs_add(in, name, id_len, name, err, errsz);
        if (!e) {
            closedir(d);
            return false;
        }
        if (!have_stat)
            ok = batch_input_refuse(e, "cannot read the entry: %s", strerror(stat_errno));
        else if (folder)
            ok = scan_folder(in->dir_fd, name, e);
        else if (S_ISLNK(st.st_mode))
            ok = batch_input_refuse(e, "the file is a symbolic link; submissions must be "
                                       "regular files");
        else if (!S_ISREG(st.st_mode))
            ok = batch_input_refuse(e, "not a regular file");
        else
            ok = (e->file = strdup(name)) != NULL;
    }
    if (ok && errno) {
        snprintf(err, errsz, "cannot read the folder %s: %s", o->path, strerror(errno));
        closedir(d);
        return false;
    }
    closedir(d);
    if (!ok)
        snprintf(err, errsz, "out of memory");
    return ok;
}
