/* batch_output.c - the output folder, atomic writes, the lock. */
#include "batch_output.h"

#include "fdio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_record.h"

#define TMP_DIR     ".tmp"
#define STUDENTS    "students"
#define RESULT_FILE "results.json"

/* Opens (creating) a folder below dir_fd without following a link there:
 * a link planted in the output folder must not redirect writes. */
static int open_folder(int dir_fd, const char *name)
{
    if (mkdirat(dir_fd, name, 0755) != 0 && errno != EEXIST)
        return -1;
    return openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Removes what an interrupted batch left in .tmp (files only). */
static void empty_tmp(int tmp_fd)
{
    int fd = dup(tmp_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            unlinkat(tmp_fd, de->d_name, 0);
    closedir(d);
}

bool batch_output_open(struct batch_output *o, const char *path, char *err, size_t errsz)
{
    o->dir_fd = o->students_fd = o->tmp_fd = o->lock_fd = -1;
    o->seq = 0;
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errsz, "cannot create the output folder %s: %s", path, strerror(errno));
        return false;
    }
    if ((o->dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        snprintf(err, errsz, "cannot open the output folder %s: %s", path, strerror(errno));
        return false;
    }
    o->lock_fd = openat(o->dir_fd, ".lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (o->lock_fd < 0 || flock(o->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        if (o->lock_fd >= 0 && errno == EWOULDBLOCK)
            snprintf(err, errsz, "another batch is writing to %s; wait for it or use another "
                     "output folder", path);
        else
            snprintf(err, errsz, "cannot lock %s/.lock: %s", path, strerror(errno));
        return false;
    }
    if ((o->tmp_fd = open_folder(o->dir_fd, TMP_DIR)) < 0 ||
        (o->students_fd = open_folder(o->dir_fd, STUDENTS)) < 0) {
        snprintf(err, errsz, "cannot create the folders in %s: %s", path, strerror(errno));
        return false;
    }
    empty_tmp(o->tmp_fd);
    return true;
}

void batch_output_close(struct batch_output *o)
{
    if (o->tmp_fd >= 0)
        close(o->tmp_fd);
    if (o->students_fd >= 0)
        close(o->students_fd);
    if (o->lock_fd >= 0)
        close(o->lock_fd);   /* releases the lock */
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->dir_fd = o->students_fd = o->tmp_fd = o->lock_fd = -1;
}

bool batch_output_identity(const struct batch_output *o, dev_t *dev, ino_t *ino)
{
    struct stat st;
    if (fstat(o->dir_fd, &st) != 0)
        return false;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return true;
}

/* Writes data to a new file in .tmp, syncs it, renames it to name in
 * dest_fd and syncs that folder. */
static bool write_atomic(struct batch_output *o, int dest_fd, const char *name,
                         const void *data, size_t len, char *err, size_t errsz)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%ld.%lu", (long)getpid(), o->seq++);
    int fd = openat(o->tmp_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errsz, "cannot create a file in .tmp: %s", strerror(errno));
        return false;
    }
    bool ok = fdio_write_all(fd, data, len) && fsync(fd) == 0;
    int saved = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && renameat(o->tmp_fd, tmp, dest_fd, name) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        unlinkat(o->tmp_fd, tmp, 0);
        snprintf(err, errsz, "cannot write %s: %s", name, strerror(saved));
        return false;
    }
    /* the rename itself reaches the disk with the folder's sync */
    fsync(dest_fd);
    return true;
}

bool batch_output_write(struct batch_output *o, const char *name, const void *data, size_t len,
                        char *err, size_t errsz)
{
    return write_atomic(o, o->dir_fd, name, data, len, err, errsz);
}

bool batch_output_write_student(struct batch_output *o, const char *key, const void *data,
                                size_t len, char *err, size_t errsz)
{
    int fd = open_folder(o->students_fd, key);
    if (fd < 0) {
        snprintf(err, errsz, "cannot create the folder students/%s: %s", key, strerror(errno));
        return false;
    }
    bool ok = write_atomic(o, fd, RESULT_FILE, data, len, err, errsz);
    close(fd);
    return ok;
}

char *batch_output_read_student(const struct batch_output *o, const char *key, size_t *len)
{
    int dir = openat(o->students_fd, key, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return NULL;
    int fd = openat(dir, RESULT_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    close(dir);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > BATCH_RECORD_MAX ||
        !(buf = malloc((size_t)st.st_size + 1)))
        goto fail;
    size_t n = 0, want = (size_t)st.st_size;
    while (n < want) {
        ssize_t got = read(fd, buf + n, want - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            goto fail;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *len = n;
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}
