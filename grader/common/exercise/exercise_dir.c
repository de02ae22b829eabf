/* exercise_dir.c - an exercise's folder from disk into exercise_load. */
#include "common/exercise/exercise_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/exercise/exercise_load.h"

/* The files of one folder as the loader takes them. */
struct folder {
    struct exercise_file files[EX_LOAD_MAX_FILES];
    size_t n;
    char *json;
    size_t json_len;
};

/* Reads at most `max` bytes of `path` into *text; a bigger file is refused
 * here, before it is all read. */
static bool read_bounded(const char *path, size_t max, char **text, size_t *len,
                         char *err, size_t errlen, const char *shown)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot be read", shown);
        return false;
    }
    char *buf = malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    bool bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        free(buf);
        snprintf(err, errlen, "%s: cannot be read", shown);
        return false;
    }
    if (n > max) {
        free(buf);
        snprintf(err, errlen, "%s: is over the bound of %zu bytes", shown, max);
        return false;
    }
    *text = buf;
    *len = n;
    return true;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool add_file(struct folder *fo, const char *dir, const char *name, char *err, size_t errlen)
{
    char path[4096], shown[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(shown, sizeof shown, "%s/%s", dir, name);
    if (fo->n == EX_LOAD_MAX_FILES) {
        snprintf(err, errlen, "%s: holds more than %d files", dir, EX_LOAD_MAX_FILES);
        return false;
    }
    struct stat st;
    if (stat(path, &st) != 0)
        return true;   /* absent: the loader names what the file is for */
    char *text;
    size_t len;
    if (!read_bounded(path, EX_LOAD_MAX_FILE, &text, &len, err, errlen, shown))
        return false;
    char *copy = strdup(name);
    if (!copy) {
        free(text);
        snprintf(err, errlen, "%s: out of memory", shown);
        return false;
    }
    fo->files[fo->n++] = (struct exercise_file){ copy, text, len };
    return true;
}

/* Every NAME.glsl of dir/sub, in name order (so a load is the same on
 * every file system). */
static bool add_glsl(struct folder *fo, const char *dir, const char *sub, char *err, size_t errlen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    DIR *d = opendir(path);
    if (!d)
        return true;   /* no mistakes/ (or no solutions/: the loader says so) */
    char *names[EX_LOAD_MAX_FILES];
    size_t n = 0;
    bool ok = true;
    struct dirent *ent;
    while (ok && (ent = readdir(d))) {
        size_t len = strlen(ent->d_name);
        if (ent->d_name[0] == '.' || len < 6 || strcmp(ent->d_name + len - 5, ".glsl") != 0)
            continue;
        if (n == EX_LOAD_MAX_FILES) {
            snprintf(err, errlen, "%s: holds more than %d files", path, EX_LOAD_MAX_FILES);
            ok = false;
        } else if (asprintf(&names[n], "%s/%s", sub, ent->d_name) < 0) {
            snprintf(err, errlen, "%s: out of memory", path);
            ok = false;
        } else {
            n++;
        }
    }
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    for (size_t i = 0; i < n; i++) {
        ok = ok && add_file(fo, dir, names[i], err, errlen);
        free(names[i]);
    }
    return ok;
}

struct exercise *exercise_dir_load(const char *dir, char *err, size_t errlen)
{
    struct folder *fo = calloc(1, sizeof *fo);
    struct exercise *e = NULL;
    char path[4096], shown[4096];
    struct stat st;
    if (!fo) {
        snprintf(err, errlen, "%s: out of memory", dir);
        return NULL;
    }
    snprintf(path, sizeof path, "%s/exercise.json", dir);
    snprintf(shown, sizeof shown, "%s/reference.c", dir);
    if (stat(shown, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s: missing (the reference, exercise_reference in C)", shown);
        goto out;
    }
    if (!read_bounded(path, EX_LOAD_MAX_JSON, &fo->json, &fo->json_len, err, errlen, path))
        goto out;
    if (!add_file(fo, dir, "README.md", err, errlen) ||
        !add_file(fo, dir, "starter.glsl", err, errlen) ||
        !add_glsl(fo, dir, "solutions", err, errlen) || !add_glsl(fo, dir, "mistakes", err, errlen))
        goto out;
    e = exercise_load(dir, fo->json, fo->json_len, fo->files, fo->n, err, errlen);
out:
    for (size_t i = 0; i < fo->n; i++) {
        free((char *)fo->files[i].name);
        free((char *)fo->files[i].text);
    }
    free(fo->json);
    free(fo);
    return e;
}
