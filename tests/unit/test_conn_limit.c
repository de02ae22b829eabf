/*
 * The connections' bounds (server/conn_limit.h) without a server: which
 * client a connection counts for (an IPv6 /64 is one, a trusted proxy's
 * requests count for the forwarded client), which connection is closed to
 * make room (the longest wait for a header), and the header deadline, on a
 * clock of the test's own. A connection is a socket pair; "closed by the
 * server" is its far end reading the end of the stream.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/defaults.h"
#include "server/conn/conn_limit.h"

static _Atomic long long fake_ms;

static double now_ms(void)
{
    return (double)atomic_load(&fake_ms);
}

struct conn {
    int near, far;                /* the server's end, the client's */
    struct sockaddr_storage sa;
    struct conn_slot *slot;
};

static void addr_of(const char *text, struct sockaddr_storage *sa)
{
    memset(sa, 0, sizeof *sa);
    struct sockaddr_in *in = (struct sockaddr_in *)sa;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;
    if (inet_pton(AF_INET, text, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        return;
    }
    assert_int_equal(inet_pton(AF_INET6, text, &in6->sin6_addr), 1);
    in6->sin6_family = AF_INET6;
}

/* Admits and opens a connection from `from`; false when refused. */
static bool connect_from(struct conn_limit *l, const char *from, struct conn *c)
{
    addr_of(from, &c->sa);
    if (!conn_limit_admit(l, (struct sockaddr *)&c->sa))
        return false;
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    c->near = sv[0];
    c->far = sv[1];
    c->slot = conn_limit_opened(l, c->near, (struct sockaddr *)&c->sa);
    assert_non_null(c->slot);
    return true;
}

/* Whether the server's end was shut down: the client reads the end. */
static bool shut(const struct conn *c)
{
    char b;
    return recv(c->far, &b, 1, MSG_DONTWAIT) == 0;
}

static void gone(struct conn_limit *l, struct conn *c)
{
    conn_limit_closed(l, c->slot);
    close(c->near);
    close(c->far);
}

static struct conn_limit *made(unsigned max, unsigned per_client, struct client_rules *rules)
{
    char err[128];
    atomic_store(&fake_ms, 1000);
    struct conn_limit_options o = { .max_connections = max, .per_client = per_client,
                                    .header_deadline_ms = HEADER_DEADLINE_S * 1000u,
                                    .rules = rules, .now_ms = now_ms };
    struct conn_limit *l = conn_limit_new(&o, err, sizeof err);
    assert_non_null(l);
    assert_int_equal(conn_limit_capacity(l), max + CONNECTION_SPARE);
    return l;
}

/* Two addresses of one /64 are one client; of two /64s, two. With a
 * prefix of 128 each address is its own. */
static void test_ipv6_network_is_one_client(void **state)
{
    (void)state;
    struct client_rules rules;
    client_addr_rules_init(&rules);
    struct conn_limit *l = made(100, 2, &rules);
    struct conn a, b, c, d;
    assert_true(connect_from(l, "2001:db8:1::1", &a));
    assert_true(connect_from(l, "2001:db8:1::ffff:2", &b));
    assert_false(connect_from(l, "2001:db8:1:0:abcd::3", &c));   /* the /64's third */
    assert_true(connect_from(l, "2001:db8:2::1", &d));           /* another /64 */
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.refused_client, 1);
    gone(l, &a);
    assert_true(connect_from(l, "2001:db8:1::99", &c));          /* a place came free */
    gone(l, &b);
    gone(l, &c);
    gone(l, &d);
    conn_limit_free(l);

    rules.ipv6_prefix = 128;
    l = made(100, 2, &rules);
    struct conn e[3];
    assert_true(connect_from(l, "2001:db8:1::1", &e[0]));
    assert_true(connect_from(l, "2001:db8:1::2", &e[1]));
    assert_true(connect_from(l, "2001:db8:1::3", &e[2]));
    for (int k = 0; k < 3; k++)
        gone(l, &e[k]);
    conn_limit_free(l);
}

/* An IPv4 peer of a dual-stack socket is its IPv4 address. */
static void test_mapped_ipv4_is_the_address(void **state)
{
    (void)state;
    struct client_rules rules;
    client_addr_rules_init(&rules);
    struct conn_limit *l = made(100, 1, &rules);
    struct conn a, b;
    assert_true(connect_from(l, "192.0.2.7", &a));
    assert_false(connect_from(l, "::ffff:192.0.2.7", &b));
    gone(l, &a);
    conn_limit_free(l);
}

/* Full: the connection that has waited longest for a header is closed
 * for the newcomer; one busy with a request (its headers in) never is. */
static void test_full_closes_the_longest_wait(void **state)
{
    (void)state;
    struct client_rules rules;
    client_addr_rules_init(&rules);
    struct conn_limit *l = made(3, 0, &rules);
    struct conn c[5];
    struct client_id who;
    client_id_local(&who);
    assert_true(connect_from(l, "192.0.2.1", &c[0]));
    atomic_store(&fake_ms, 1100);
    assert_true(connect_from(l, "192.0.2.2", &c[1]));
    atomic_store(&fake_ms, 1200);
    assert_true(connect_from(l, "192.0.2.3", &c[2]));
    /* the oldest sends its headers: it is busy, not waiting */
    assert_int_equal(conn_limit_headers(l, c[0].slot, &who), CONN_OK);
    atomic_store(&fake_ms, 1300);
    assert_true(connect_from(l, "192.0.2.4", &c[3]));
    assert_false(shut(&c[0]));
    assert_true(shut(&c[1]));
    assert_false(shut(&c[2]));
    /* the first's request is over: it waits again, from now, the latest */
    atomic_store(&fake_ms, 1400);
    conn_limit_request_done(l, c[0].slot);
    gone(l, &c[1]);
    assert_true(connect_from(l, "192.0.2.5", &c[4]));
    assert_true(shut(&c[2]));
    assert_false(shut(&c[0]));
    assert_false(shut(&c[3]));
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.closed_for_room, 2);
    gone(l, &c[0]);
    gone(l, &c[2]);
    gone(l, &c[3]);
    gone(l, &c[4]);
    conn_limit_free(l);
}

/* Every slot busy with a request: a newcomer comes in over the bound and
 * is told CONN_BUSY (503) at its headers; past the spare, refused. */
static void test_all_busy_answers_busy(void **state)
{
    (void)state;
    struct client_rules rules;
    client_addr_rules_init(&rules);
    struct conn_limit *l = made(2, 0, &rules);
    struct conn c[2 + CONNECTION_SPARE + 1];
    struct client_id who;
    client_id_local(&who);
    for (int k = 0; k < 2; k++) {
        assert_true(connect_from(l, "192.0.2.1", &c[k]));
        assert_int_equal(conn_limit_headers(l, c[k].slot, &who), CONN_OK);
    }
    struct conn extra;
    assert_true(connect_from(l, "192.0.2.9", &extra));
    assert_string_equal(conn_limit_verdict_to_str(conn_limit_headers(l, extra.slot, &who)), "busy");
    gone(l, &extra);
    /* the spare fills with ones that never send a header: each newcomer
     * closes the longest wait among them, until none is left to close */
    size_t n = 2;
    for (; n < 2 + CONNECTION_SPARE; n++)
        assert_true(connect_from(l, "192.0.2.9", &c[n]));
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.open, 2 + CONNECTION_SPARE);
    assert_false(connect_from(l, "192.0.2.10", &c[n]));
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.refused_full, 1);
    for (size_t k = 0; k < n; k++)
        gone(l, &c[k]);
    conn_limit_free(l);
}

/* The deadline: a connection waiting since before now - deadline is
 * closed, one in time is not, and a trusted proxy's never is. */
static void test_header_deadline(void **state)
{
    (void)state;
    char err[128];
    struct client_rules rules;
    client_addr_rules_init(&rules);
    assert_true(client_addr_proxies_add(&rules.proxies, "10.0.0.1", err, sizeof err));
    struct conn_limit *l = made(10, 0, &rules);
    struct conn early, late, proxy, kept;
    struct client_id who;
    client_id_local(&who);
    assert_true(connect_from(l, "192.0.2.1", &early));
    assert_true(connect_from(l, "10.0.0.1", &proxy));
    assert_true(connect_from(l, "192.0.2.3", &kept));
    assert_int_equal(conn_limit_headers(l, kept.slot, &who), CONN_OK);
    atomic_store(&fake_ms, 3000);
    assert_true(connect_from(l, "192.0.2.2", &late));
    double deadline = HEADER_DEADLINE_S * 1000.0;
    conn_limit_expire(l, 1000 + deadline - 1);
    assert_false(shut(&early));
    conn_limit_expire(l, 1000 + deadline);
    assert_true(shut(&early));
    assert_false(shut(&late));
    assert_false(shut(&proxy));
    assert_false(shut(&kept));   /* busy with its request: no header awaited */
    /* its answer sent, it waits for the next header from then */
    atomic_store(&fake_ms, 4000);
    conn_limit_request_done(l, kept.slot);
    conn_limit_expire(l, 4000 + deadline);
    assert_true(shut(&late));
    assert_true(shut(&kept));
    assert_false(shut(&proxy));
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.closed_deadline, 3);
    gone(l, &early);
    gone(l, &late);
    gone(l, &proxy);
    gone(l, &kept);
    conn_limit_free(l);
}

/* A trusted proxy: its own address holds any number of connections; each
 * request counts for the client it forwards until it is over. */
static void test_forwarded_client_counted(void **state)
{
    (void)state;
    char err[128];
    struct client_rules rules;
    client_addr_rules_init(&rules);
    assert_true(client_addr_proxies_add(&rules.proxies, "10.0.0.1", err, sizeof err));
    struct conn_limit *l = made(10, 2, &rules);
    struct conn c[4];
    for (int k = 0; k < 4; k++)
        assert_true(connect_from(l, "10.0.0.1", &c[k]));
    struct sockaddr_storage sa;
    struct client_id student, other;
    addr_of("198.51.100.7", &sa);
    client_addr_from_sockaddr((struct sockaddr *)&sa, &student);
    addr_of("198.51.100.8", &sa);
    client_addr_from_sockaddr((struct sockaddr *)&sa, &other);
    assert_int_equal(conn_limit_headers(l, c[0].slot, &student), CONN_OK);
    assert_int_equal(conn_limit_headers(l, c[1].slot, &student), CONN_OK);
    assert_int_equal(conn_limit_headers(l, c[2].slot, &student), CONN_CLIENT_FULL);
    assert_int_equal(conn_limit_headers(l, c[3].slot, &other), CONN_OK);
    /* a direct connection of the student's counts with the forwarded ones */
    struct conn direct;
    assert_false(connect_from(l, "198.51.100.7", &direct));
    conn_limit_request_done(l, c[2].slot);   /* the 429's request is over */
    conn_limit_request_done(l, c[0].slot);
    assert_int_equal(conn_limit_headers(l, c[2].slot, &student), CONN_OK);
    struct conn_limit_stats st;
    conn_limit_get_stats(l, &st);
    assert_int_equal(st.answered_client_full, 1);
    for (int k = 0; k < 4; k++)
        gone(l, &c[k]);
    conn_limit_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ipv6_network_is_one_client),
        cmocka_unit_test(test_mapped_ipv4_is_the_address),
        cmocka_unit_test(test_full_closes_the_longest_wait),
        cmocka_unit_test(test_all_busy_answers_busy),
        cmocka_unit_test(test_header_deadline),
        cmocka_unit_test(test_forwarded_client_counted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
