/* batch_output.c - the output folder, atomic writes, the lock. */
#include "batch/batch_output.h"

#include "common/io/fdio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch/batch_record.h"
#include "batch/input/batch_id.h"

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

/* Removes the files in a folder (what an interrupted batch left in .tmp,
 * the reports of the run before); never a folder, never through a link. */
static void empty_folder(int dir_fd)
{
    int fd = dup(dir_fd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            unlinkat(dir_fd, de->d_name, 0);
    closedir(d);
}

bool batch_output_open(struct batch_output *o, const char *path, char *err, size_t errsz)
{
    o->dir_fd = o->students_fd = o->tmp_fd = o->lock_fd = o->reports_fd = -1;
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
    empty_folder(o->tmp_fd);
    return true;
}

void batch_output_close(struct batch_output *o)
{
    if (o->tmp_fd >= 0)
        close(o->tmp_fd);
    if (o->students_fd >= 0)
        close(o->students_fd);
    if (o->reports_fd >= 0)
        close(o->reports_fd);
    if (o->lock_fd >= 0)
        close(o->lock_fd);   /* releases the lock */
    if (o->dir_fd >= 0)
        close(o->dir_fd);
    o->dir_fd = o->students_fd = o->tmp_fd = o->lock_fd = o->reports_fd = -1;
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

/* Writes data to a new file in .tmp, syncs it (with `sync`), renames it
 * to name in dest_fd and syncs that folder (with `sync`). */
static bool write_atomic(struct batch_output *o, int dest_fd, const char *name,
                         const void *data, size_t len, bool sync, char *err, size_t errsz)
{
    char tmp[64];
    snprintf(tmp, sizeof tmp, "%ld.%lu", (long)getpid(), o->seq++);
    int fd = openat(o->tmp_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errsz, "cannot create a file in .tmp: %s", strerror(errno));
        return false;
    }
    bool ok = fdio_write_all(fd, data, len) && (!sync || fsync(fd) == 0);
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
    if (sync)
        fsync(dest_fd);
    return true;
}

bool batch_output_write(struct batch_output *o, const char *name, const void *data, size_t len,
                        char *err, size_t errsz)
{
    return write_atomic(o, o->dir_fd, name, data, len, true, err, errsz);
}

bool batch_output_reports_begin(struct batch_output *o, char *err, size_t errsz)
{
    if (o->reports_fd < 0 && (o->reports_fd = open_folder(o->dir_fd, BATCH_REPORTS_DIR)) < 0) {
        snprintf(err, errsz, "cannot create the folder %s: %s", BATCH_REPORTS_DIR, strerror(errno));
        return false;
    }
    empty_folder(o->reports_fd);
    return true;
}

bool batch_output_write_report(struct batch_output *o, const char *key, const void *data,
                               size_t len, char *err, size_t errsz)
{
    char name[BATCH_KEY_MAX + 8];
    snprintf(name, sizeof name, "%s.html", key);
    return write_atomic(o, o->reports_fd, name, data, len, false, err, errsz);
}

bool batch_output_write_student(struct batch_output *o, const char *key, const void *data,
                                size_t len, char *err, size_t errsz)
{
    int fd = open_folder(o->students_fd, key);
    if (fd < 0) {
        snprintf(err, errsz, "cannot create the folder students/%s: %s", key, strerror(errno));
        return false;
    }
    bool ok = write_atomic(o, fd, RESULT_FILE, data, len, true, err, errsz);
    close(fd);
    return ok;
}

/* Reads name in dir_fd whole: a regular file of at most max bytes, not
 * through a link. A malloc'd, NUL-terminated buffer, or NULL. */
static char *read_whole(int dir_fd, const char *name, size_t max, size_t *len)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > max ||
        !(buf = malloc((size_t)st.st_size + 1)))
        goto fail;
    size_t want = (size_t)st.st_size;
    if (!fdio_read_all(fd, buf, want))
        goto fail;
    close(fd);
    buf[want] = '\0';
    *len = want;
    return buf;
fail:
    free(buf);
    close(fd);
    return NULL;
}

char *batch_output_read_student(const struct batch_output *o, const char *key, size_t *len)
{
    int dir = openat(o->students_fd, key, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return NULL;
    char *buf = read_whole(dir, RESULT_FILE, BATCH_RECORD_MAX, len);
    close(dir);
    return buf;
}

char *batch_output_read(const struct batch_output *o, const char *name, size_t max, size_t *len)
{
    return read_whole(o->dir_fd, name, max, len);
}
