/*
 * The watch of a suspended submission's socket between the HTTP thread and
 * the pool's thread (conn_watch_handoff), in both orders, the pool's first
 * being the one that lost before issue 19: the socket must not stay
 * watched, so the next submission on the same keep-alive connection is
 * watched and its client's hang-up cancels it.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "server/conn/conn_watch.h"

struct gone {
    pthread_mutex_t lock;
    uint64_t ids[8];
    int n;
};

static void on_gone(uint64_t id, void *arg)
{
    struct gone *g = arg;
    pthread_mutex_lock(&g->lock);
    if (g->n < 8)
        g->ids[g->n++] = id;
    pthread_mutex_unlock(&g->lock);
}

/* Whether job id was reported gone within two seconds. */
static bool seen_gone(struct gone *g, uint64_t id)
{
    for (int tries = 0; tries < 200; tries++) {
        pthread_mutex_lock(&g->lock);
        for (int k = 0; k < g->n; k++) {
            if (g->ids[k] == id) {
                pthread_mutex_unlock(&g->lock);
                return true;
            }
        }
        pthread_mutex_unlock(&g->lock);
        nanosleep(&(struct timespec){ 0, 10 * 1000 * 1000 }, NULL);
    }
    return false;
}

/* One keep-alive connection: a first submission ends with the two sides
 * in the given order, then a second is watched and its client hangs up. */
static void two_submissions(bool pool_first)
{
    char err[128];
    struct gone g = { PTHREAD_MUTEX_INITIALIZER, { 0 }, 0 };
    struct conn_watch *w = conn_watch_new(on_gone, &g, err, sizeof err);
    assert_non_null(w);
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);

    atomic_uint first = 0;
    if (pool_first) {
        /* the result is published and the pool's side done before the HTTP
         * thread watches: its watch must end at once */
        conn_watch_handoff(w, &first, 1);
        assert_true(conn_watch_add(w, sv[0], 1));
        conn_watch_handoff(w, &first, 1);
    } else {
        assert_true(conn_watch_add(w, sv[0], 1));
        conn_watch_handoff(w, &first, 1);
        conn_watch_handoff(w, &first, 1);
    }

    /* the next submission on the same connection */
    atomic_uint second = 0;
    assert_true(conn_watch_add(w, sv[0], 2));
    close(sv[1]);   /* its client hangs up while it waits */
    assert_true(seen_gone(&g, 2));
    conn_watch_handoff(w, &second, 2);
    conn_watch_handoff(w, &second, 2);
    pthread_mutex_lock(&g.lock);
    for (int k = 0; k < g.n; k++)
        assert_true(g.ids[k] == 2);   /* the first job had ended: never cancelled */
    pthread_mutex_unlock(&g.lock);
    conn_watch_free(w);
    close(sv[0]);
}

static void test_pool_side_first(void **state)
{
    two_submissions(true);
}

static void test_http_side_first(void **state)
{
    two_submissions(false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_side_first),
        cmocka_unit_test(test_http_side_first),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
