/* fdio.h - whole reads and writes on blocking file descriptors. */
#ifndef BUTTERFLY_FDIO_H
#define BUTTERFLY_FDIO_H

#include <stdbool.h>
#include <stddef.h>

/* Writes all len bytes, retrying short writes and EINTR. False on error. */
bool fdio_write_all(int fd, const void *buf, size_t len);

/*
 * Sends all len bytes on a socket with MSG_NOSIGNAL, so that a peer that
 * is gone is an error here rather than SIGPIPE for the whole process
 * (no caller has to ignore the signal). Retries EINTR and short sends; a
 * non-blocking socket that would block is an error. False on error.
 */
bool fdio_send_all(int fd, const void *buf, size_t len);

/* Reads exactly len bytes, retrying short reads and EINTR. False on error
 * or end of file before len bytes. */
bool fdio_read_all(int fd, void *buf, size_t len);

#endif
