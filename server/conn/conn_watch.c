/* conn_watch.c - an epoll set of suspended sockets, and its thread. */
#include "server/conn/conn_watch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct watched {
    int fd;
    uint64_t id;
};

struct conn_watch {
    conn_gone_fn gone;
    void *arg;
    int epfd, stopfd;
    pthread_t thread;
    pthread_mutex_t lock;
    bool stopped;                /* the thread is joined (owner's thread only) */
    struct watched *items;       /* by the lock */
    size_t n, cap;
};

/* Index of job id's socket, or -1 (ids are never reused). Lock held. */
static long find(const struct conn_watch *w, uint64_t id)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->items[i].id == id)
            return (long)i;
    return -1;
}

/* Forgets item i and takes its socket out of the set. Lock held. */
static void drop(struct conn_watch *w, size_t i)
{
    epoll_ctl(w->epfd, EPOLL_CTL_DEL, w->items[i].fd, NULL);
    w->items[i] = w->items[--w->n];
}

static void *run(void *arg)
{
    struct conn_watch *w = arg;
    struct epoll_event ev[32];
    for (;;) {
        int n = epoll_wait(w->epfd, ev, 32, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        for (int k = 0; k < n; k++) {
            if (ev[k].data.u64 == UINT64_MAX)
                return NULL;   /* stopfd: conn_watch_free */
            uint64_t id = ev[k].data.u64;
            pthread_mutex_lock(&w->lock);
            long i = find(w, id);
            if (i >= 0)
                drop(w, (size_t)i);
            pthread_mutex_unlock(&w->lock);
            if (i >= 0)
                w->gone(id, w->arg);
        }
    }
    return NULL;
}

struct conn_watch *conn_watch_new(conn_gone_fn gone, void *arg, char *err, size_t errsz)
{
    struct conn_watch *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    w->gone = gone;
    w->arg = arg;
    w->epfd = epoll_create1(EPOLL_CLOEXEC);
    w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = UINT64_MAX };
    if (w->epfd < 0 || w->stopfd < 0 || epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->stopfd, &ev) != 0) {
        snprintf(err, errsz, "cannot watch connections: %s", strerror(errno));
        goto fail;
    }
    pthread_mutex_init(&w->lock, NULL);
    if (pthread_create(&w->thread, NULL, run, w) != 0) {
        snprintf(err, errsz, "cannot start the connection watcher");
        pthread_mutex_destroy(&w->lock);
        goto fail;
    }
    return w;
fail:
    if (w->epfd >= 0)
        close(w->epfd);
    if (w->stopfd >= 0)
        close(w->stopfd);
    free(w);
    return NULL;
}

bool conn_watch_add(struct conn_watch *w, int fd, uint64_t id)
{
    bool ok = false;
    pthread_mutex_lock(&w->lock);
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 64;
        struct watched *grown = realloc(w->items, cap * sizeof *grown);
        if (!grown)
            goto out;
        w->items = grown;
        w->cap = cap;
    }
    /* only the end of the peer: a client may send its next request early,
     * and readable data is not a hang-up */
    struct epoll_event ev = { .events = EPOLLRDHUP, .data.u64 = id };
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, fd, &ev) != 0)
        goto out;
    w->items[w->n++] = (struct watched){ fd, id };
    ok = true;
out:
    pthread_mutex_unlock(&w->lock);
    return ok;
}

void conn_watch_remove(struct conn_watch *w, uint64_t id)
{
    pthread_mutex_lock(&w->lock);
    long i = find(w, id);
    if (i >= 0)
        drop(w, (size_t)i);
    pthread_mutex_unlock(&w->lock);
}

void conn_watch_stop(struct conn_watch *w)
{
    if (!w || w->stopped)
        return;
    uint64_t one = 1;
    if (write(w->stopfd, &one, sizeof one) != sizeof one)
        perror("conn_watch: stop");
    pthread_join(w->thread, NULL);
    w->stopped = true;
}

void conn_watch_free(struct conn_watch *w)
{
    if (!w)
        return;
    conn_watch_stop(w);
    pthread_mutex_destroy(&w->lock);
    close(w->epfd);
    close(w->stopfd);
    free(w->items);
    free(w);
}

void conn_watch_handoff(struct conn_watch *w, atomic_uint *arrived, uint64_t id)
{
    if (atomic_fetch_add(arrived, 1) == 1)
        conn_watch_remove(w, id);
}
