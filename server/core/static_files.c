/* static_files.c - a fixed, in-memory set of files for GET /static/... */
#include "server/core/static_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/hash.h"

#define MAX_FILE  (8u << 20)
#define MAX_TOTAL (64u << 20)
#define MAX_FILES 256

struct static_files {
    struct static_file files[MAX_FILES];
    size_t count;
};

static bool safe_name(const char *name)
{
    if (!*name || name[0] == '.' || strlen(name) > 128)
        return false;
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
            return false;
    return true;
}

static const char *content_type(const char *name)
{
    static const struct { const char *ext, *type; } types[] = {
        { ".html", "text/html; charset=utf-8" },
        { ".js", "text/javascript; charset=utf-8" },
        { ".mjs", "text/javascript; charset=utf-8" },
        { ".css", "text/css; charset=utf-8" },
        { ".svg", "image/svg+xml" },
        { ".json", "application/json" },
        { ".map", "application/json" },
        { ".png", "image/png" },
        { ".ico", "image/x-icon" },
        { ".txt", "text/plain; charset=utf-8" },
        { ".glsl", "text/plain; charset=utf-8" },
        { ".woff2", "font/woff2" },
    };
    const char *dot = strrchr(name, '.');
    for (size_t i = 0; dot && i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(dot, types[i].ext))
            return types[i].type;
    return "application/octet-stream";
}

static bool load_one(int dirfd, const char *name, struct static_file *f, size_t *total,
                     char *err, size_t errsz)
{
    /* O_NOFOLLOW: a link in the folder could point anywhere. O_NONBLOCK:
     * opening a FIFO would otherwise wait for a writer, and start-up with
     * it, forever. */
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        /* not a regular file (a link, a FIFO, a folder, a device): not served */
        fprintf(stderr, "butterfly-server: static folder: skipping %s: not a regular file\n",
                name);
        return true;
    }
    if ((size_t)st.st_size > MAX_FILE || *total + (size_t)st.st_size > MAX_TOTAL) {
        snprintf(err, errsz, "static file %s is too large", name);
        close(fd);
        return false;
    }
    f->len = (size_t)st.st_size;
    f->data = malloc(f->len ? f->len : 1);
    f->name = strdup(name);
    size_t got = 0;
    while (f->data && got < f->len) {
        ssize_t n = read(fd, f->data + got, f->len - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (!f->data || !f->name || got != f->len) {
        snprintf(err, errsz, "cannot read static file %s", name);
        return false;
    }
    f->content_type = content_type(name);
    snprintf(f->etag, sizeof f->etag, "\"%016llx\"", (unsigned long long)hash_fnv1a64(f->data, f->len));
    *total += f->len;
    return true;
}

struct static_files *static_files_load(const char *dir, char *err, size_t errsz)
{
    struct static_files *s = calloc(1, sizeof *s);
    DIR *d = opendir(dir);
    size_t total = 0;
    if (!s || !d) {
        snprintf(err, errsz, "cannot open the static folder %s: %s", dir, strerror(errno));
        goto fail;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!safe_name(e->d_name))
            continue;
        if (s->count == MAX_FILES) {
            snprintf(err, errsz, "more than %d files in %s", MAX_FILES, dir);
            goto fail;
        }
        struct static_file *f = &s->files[s->count];
        if (!load_one(dirfd(d), e->d_name, f, &total, err, errsz)) {
            free(f->data);
            free(f->name);
            memset(f, 0, sizeof *f);
            goto fail;
        }
        if (f->name)
            s->count++;
    }
    closedir(d);
    return s;
fail:
    if (d)
        closedir(d);
    static_files_free(s);
    return NULL;
}

const struct static_file *static_files_find(const struct static_files *s, const char *name)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp(s->files[i].name, name))
            return &s->files[i];
    return NULL;
}

size_t static_files_count(const struct static_files *s)
{
    return s->count;
}

void static_files_free(struct static_files *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->count; i++) {
        free(s->files[i].name);
        free(s->files[i].data);
    }
    free(s);
}
