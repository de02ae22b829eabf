/* fdio.c - the retry loops every file-descriptor user needs. */
#include "common/io/fdio.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

enum fdio_op { FDIO_READ, FDIO_WRITE, FDIO_SEND };

/* One loop for all three: the whole of len bytes, or false. */
static bool transfer_all(int fd, char *p, size_t len, enum fdio_op op)
{
    while (len > 0) {
        ssize_t n = op == FDIO_READ  ? read(fd, p, len)
                  : op == FDIO_WRITE ? write(fd, p, len)
                                     : send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

bool fdio_write_all(int fd, const void *buf, size_t len)
{
    return transfer_all(fd, (char *)buf, len, FDIO_WRITE);   /* only read from */
}

bool fdio_send_all(int fd, const void *buf, size_t len)
{
    return transfer_all(fd, (char *)buf, len, FDIO_SEND);    /* only read from */
}

bool fdio_read_all(int fd, void *buf, size_t len)
{
    return transfer_all(fd, buf, len, FDIO_READ);
}
