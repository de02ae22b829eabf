/* static_files.h - the page's files, read once at start and served from memory. */
#ifndef BUTTERFLY_STATIC_FILES_H
#define BUTTERFLY_STATIC_FILES_H

#include <stddef.h>

struct static_file {
    char *name;                 /* a plain name: [A-Za-z0-9._-]+, no leading dot */
    char *data;
    size_t len;
    const char *content_type;
    char etag[24];              /* a quoted hash of the content */
};

struct static_files;

/*
 * Reads the regular files at the top of `dir` (no subfolders, no links,
 * no names outside [A-Za-z0-9._-]) into memory, at most 8 MiB each and
 * 64 MiB in all. A request path is only ever looked up in this set, never
 * resolved on disk, so no path can reach another file. NULL with err set
 * on failure; a missing dir is an error.
 */
struct static_files *static_files_load(const char *dir, char *err, size_t errsz);

/* The file called `name`, or NULL. */
const struct static_file *static_files_find(const struct static_files *s, const char *name);

/* How many files were loaded. */
size_t static_files_count(const struct static_files *s);

/* Frees the set. Accepts NULL. */
void static_files_free(struct static_files *s);

#endif
