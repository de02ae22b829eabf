/*
 * The pool's pure parts, without processes or a device: the fair queue
 * (one flooding client delays another's job by at most one job per
 * client, and a client served long ago goes first), the wait estimate behind admission and Retry-After, and which
 * lost workers blame the student and which the grader.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <unistd.h>

#include "common/task.h"
#include "common/io/frame.h"
#include "common/score.h"
#include "common/verdict.h"
#include "pool/job.h"
#include "pool/fair_queue.h"
#include "pool/wait_estimate.h"
#include "pool/worker_loss.h"

/* The client 10.0.0.C, told apart by one letter in these tests. */
static struct client_id named(char c)
{
    const uint8_t addr[4] = { 10, 0, 0, (uint8_t)c };
    struct client_id id;
    client_id_set(&id, CLIENT_IPV4, addr, 32);
    return id;
}

static struct job *job_of(char client, uint64_t id)
{
    struct client_id c = named(client);
    struct job *j = job_new(NULL, "return 0.0;", 11, &c, 1);
    assert_non_null(j);
    j->id = id;
    return j;
}

static void test_one_client_is_a_fifo(void **state)
{
    struct fair_queue *q = fair_queue_new();
    for (uint64_t i = 1; i <= 5; i++)
        assert_true(fair_queue_push(q, job_of('a', i), false));
    assert_int_equal(fair_queue_total(q), 5);
    struct client_id a = named('a'), b = named('b');
    assert_int_equal(fair_queue_of(q, &a), 5);
    assert_int_equal(fair_queue_of(q, &b), 0);
    assert_int_equal(fair_queue_of(q, NULL), 0);   /* the local client has none */
    for (uint64_t i = 1; i <= 5; i++) {
        struct job *j = fair_queue_pop(q);
        assert_int_equal(j->id, i);
        job_free(j);
    }
    assert_null(fair_queue_pop(q));
    assert_int_equal(fair_queue_clients(q), 0);
    fair_queue_free(q);
}

/* 100 jobs of a flooder, then one of a bystander: the bystander's job is
 * the second out, not the 101st. */
static void test_flood_delays_a_bystander_by_one_job(void **state)
{
    struct fair_queue *q = fair_queue_new();
    for (uint64_t i = 1; i <= 100; i++)
        assert_true(fair_queue_push(q, job_of('f', i), false));
    assert_true(fair_queue_push(q, job_of('b', 1000), false));
    assert_int_equal(fair_queue_clients(q), 2);
    int position = 0;
    for (int k = 1; k <= 101; k++) {
        struct job *j = fair_queue_pop(q);
        if (j->id == 1000)
            position = k;
        job_free(j);
    }
    assert_true(position >= 1 && position <= 2);
    fair_queue_free(q);
}

/* Three clients with several jobs each are served in turn. */
static void test_round_robin_order(void **state)
{
    struct fair_queue *q = fair_queue_new();
    const char clients[] = "abc";
    for (uint64_t i = 0; i < 9; i++)
        assert_true(fair_queue_push(q, job_of(clients[i / 3], i + 1), false));
    char order[10] = "";
    for (int k = 0; k < 9; k++) {
        struct job *j = fair_queue_pop(q);
        order[k] = (char)j->client.addr[3];
        job_free(j);
    }
    assert_string_equal(order, "abcabcabc");
    fair_queue_free(q);
}

static char pop_client(struct fair_queue *q)
{
    struct job *j = fair_queue_pop(q);
    assert_non_null(j);
    char c = (char)j->client.addr[3];
    job_free(j);
    return c;
}

/* Five closed-loop flooders (each one job at a time, the next as soon as
 * the last is taken) and a bystander who submits now and then: the
 * bystander's job is the next taken, not the sixth, because its last job
 * was taken longer ago than any flooder's. */
static void test_a_bystander_goes_before_closed_loop_flooders(void **state)
{
    struct fair_queue *q = fair_queue_new();
    const char flooders[] = { '1', '2', '3', '4', '5' };
    uint64_t id = 1;
    assert_true(fair_queue_push(q, job_of('b', id++), false));
    assert_int_equal(pop_client(q), 'b');
    for (int i = 0; i < 5; i++)
        assert_true(fair_queue_push(q, job_of(flooders[i], id++), false));
    for (int round = 0; round < 50; round++) {
        /* each flooder's job is taken and it sends its next at once */
        for (int i = 0; i < 5; i++) {
            char c = pop_client(q);
            assert_int_equal(c, flooders[(round * 5 + i) % 5]);
            assert_true(fair_queue_push(q, job_of(flooders[i], id++), false));
        }
        if (round % 10 == 9) {
            assert_true(fair_queue_push(q, job_of('b', id++), false));
            assert_int_equal(pop_client(q), 'b');
        }
    }
    /* a newcomer goes first as well, and a second newcomer after it */
    assert_true(fair_queue_push(q, job_of('n', id++), false));
    assert_true(fair_queue_push(q, job_of('m', id++), false));
    assert_int_equal(pop_client(q), 'n');
    assert_int_equal(pop_client(q), 'm');
    /* the flooders, still in turn */
    for (int i = 0; i < 5; i++)
        assert_int_equal(pop_client(q), flooders[i]);
    assert_null(fair_queue_pop(q));
    fair_queue_free(q);
}

/* With more clients than the queue remembers, a forgotten one counts as new
 * and goes first; every job is still taken exactly once. */
static void test_forgotten_clients_count_as_new(void **state)
{
    struct fair_queue *q = fair_queue_new();
    for (uint64_t i = 0; i < 200; i++) {
        assert_true(fair_queue_push(q, job_of((char)i, i + 1), false));
        struct job *j = fair_queue_pop(q);
        assert_int_equal(j->id, i + 1);
        job_free(j);
    }
    assert_true(fair_queue_push(q, job_of((char)199, 1000), false));   /* served last */
    assert_true(fair_queue_push(q, job_of((char)0, 1001), false));     /* forgotten */
    struct job *j = fair_queue_pop(q);
    assert_int_equal(j->id, 1001);
    job_free(j);
    j = fair_queue_pop(q);
    assert_int_equal(j->id, 1000);
    job_free(j);
    assert_int_equal(fair_queue_clients(q), 0);
    fair_queue_free(q);
}

static void test_remove_and_retry_first(void **state)
{
    struct fair_queue *q = fair_queue_new();
    for (uint64_t i = 1; i <= 3; i++)
        assert_true(fair_queue_push(q, job_of('a', i), false));
    struct job *two = fair_queue_remove(q, 2);
    assert_non_null(two);
    assert_int_equal(two->id, 2);
    assert_null(fair_queue_remove(q, 2));
    struct client_id a = named('a');
    assert_int_equal(fair_queue_of(q, &a), 2);
    /* a retried job goes back to the head of its client's queue */
    assert_true(fair_queue_push(q, two, true));
    struct job *j = fair_queue_pop(q);
    assert_int_equal(j->id, 2);
    job_free(j);
    while ((j = fair_queue_pop(q)))
        job_free(j);
    /* removing a client's last job takes the client out of the round */
    assert_true(fair_queue_push(q, job_of('b', 9), false));
    j = fair_queue_remove(q, 9);
    job_free(j);
    assert_int_equal(fair_queue_clients(q), 0);
    assert_null(fair_queue_pop(q));
    fair_queue_free(q);
}

static void test_wait_estimate(void **state)
{
    struct job_time t;
    job_time_init(&t);
    assert_float_equal(t.mean_ms, JOB_TIME_FIRST_GUESS_MS, 1e-9);
    /* the first sample replaces the guess */
    job_time_add(&t, 20);
    assert_float_equal(t.mean_ms, 20, 1e-9);
    for (int i = 0; i < 100; i++)
        job_time_add(&t, 20);
    job_time_add(&t, -5);   /* not a time */
    assert_float_equal(t.mean_ms, 20, 1e-9);
    /* a free worker: no wait */
    assert_float_equal(wait_estimate_ms(&t, 0, 1, 2), 0, 1e-9);
    /* 200 at once on 2 workers: the last waits about 199 jobs / 2 */
    assert_float_equal(wait_estimate_ms(&t, 198, 2, 2), 199 * 20 / 2.0, 1e-6);
    assert_int_equal(wait_retry_after_s(1990), 2);
    assert_int_equal(wait_retry_after_s(0), 1);
    assert_int_equal(wait_retry_after_s(1e12), 86400);
}

/* Which lost workers blame the student's code, and which the grader. */
static void test_loss_blames_only_the_code(void **state)
{
    static const struct {
        enum worker_loss cause;
        enum grade_stage stage;
        bool have_status;
        int status;
        bool fault;
        enum verdict_status want;
    } cases[] = {
        /* the deadline is the grader's limit: never Time Limit Exceeded */
        { LOSS_DEADLINE, STAGE_RUN, false, 0, true, VERDICT_INTERNAL_ERROR },
        { LOSS_DEADLINE, STAGE_COMPILE, false, 0, true, VERDICT_INTERNAL_ERROR },
        { LOSS_STOPPED, STAGE_RUN, false, 0, true, VERDICT_INTERNAL_ERROR },
        { LOSS_PROTOCOL, STAGE_RUN, true, 0, true, VERDICT_INTERNAL_ERROR },
        /* the compiler or the driver crashing on the code */
        { LOSS_EXITED, STAGE_COMPILE, true, SIGSEGV, false, VERDICT_RUNTIME_SIGSEGV },
        { LOSS_EXITED, STAGE_RUN, true, SIGABRT, false, VERDICT_RUNTIME_SIGABRT },
        /* killed from outside: never the code */
        { LOSS_EXITED, STAGE_RUN, true, SIGKILL, true, VERDICT_INTERNAL_ERROR },
        /* a crash before the code reached the compiler is the grader's */
        { LOSS_EXITED, STAGE_NONE, true, SIGSEGV, true, VERDICT_INTERNAL_ERROR },
        /* the worker's own failure */
        { LOSS_EXITED, STAGE_RUN, true, WORKER_EXIT_INTERNAL << 8, true, VERDICT_INTERNAL_ERROR },
        { LOSS_EXITED, STAGE_RUN, true, 1 << 8, false, VERDICT_RUNTIME_NZEC },
        { LOSS_EXITED, STAGE_RUN, false, 0, true, VERDICT_INTERNAL_ERROR },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        bool fault = !cases[i].fault;
        struct verdict *v = worker_loss_verdict(cases[i].cause, cases[i].stage,
                                                cases[i].have_status, cases[i].status, 5000,
                                                &fault);
        assert_non_null(v);
        if (fault != cases[i].fault || v->status != cases[i].want)
            fail_msg("case %zu (%s, %s): %s, fault %d", i, worker_loss_to_str(cases[i].cause),
                     grade_stage_to_str(cases[i].stage), verdict_status_to_str(v->status), fault);
        /* the grader's faults say so, and never blame the code */
        if (fault)
            assert_non_null(strstr(v->message, "not a fault of your code"));
        verdict_free(v);
    }
}

/* Writing to a worker that is gone is an error, not SIGPIPE for the whole
 * process: no program has to ignore the signal (this one does not). */
static void test_frames_to_a_closed_peer_fail_without_sigpipe(void **state)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    close(sv[1]);
    assert_false(frame_write(sv[0], FRAME_STAGE, "run", 3));
    assert_false(frame_write_job(sv[0], 7, NULL, "return 0.0;", 11));
    close(sv[0]);
}

/* A job's frame carries its exercise to the worker: the id the pool
 * wrote is the id the worker reads, the body after it intact; no id is
 * the default exercise; an id past EX_ID_MAX is not written, and one the
 * registry could not hold (a '/', a byte past the payload) not read. */
static void test_job_frame_carries_the_exercise(void **state)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    static const struct { const char *id, *want; } cases[] = {
        { "bit_reversal", "bit_reversal" }, { NULL, "" }, { "", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_true(frame_write_job(sv[0], 0x0102030405060708ull, cases[i].id, "return 1.0;", 11));
        enum frame_type type;
        char *payload, id[EX_ID_MAX + 1];
        size_t len, body_len;
        uint64_t seed;
        const char *body;
        assert_true(frame_read(sv[1], &type, &payload, &len));
        assert_int_equal(type, FRAME_JOB);
        assert_true(frame_parse_job(payload, len, &seed, id, &body, &body_len));
        assert_string_equal(id, cases[i].want);
        assert_true(seed == 0x0102030405060708ull);
        assert_int_equal(body_len, 11);
        assert_memory_equal(body, "return 1.0;", 11);
        free(payload);
    }
    char long_id[EX_ID_MAX + 2];
    memset(long_id, 'a', sizeof long_id - 1);
    long_id[sizeof long_id - 1] = '\0';
    assert_false(frame_write_job(sv[0], 1, long_id, "x", 1));
    /* hand-made payloads: seed, id length, id, body */
    char id[EX_ID_MAX + 1], bad[8 + 1 + 4 + 1] = { 0 };
    uint64_t seed;
    const char *body;
    size_t body_len;
    bad[8] = 4;
    memcpy(bad + 9, "a/..", 4);
    assert_false(frame_parse_job(bad, sizeof bad, &seed, id, &body, &body_len));
    memcpy(bad + 9, "abcd", 4);
    assert_true(frame_parse_job(bad, sizeof bad, &seed, id, &body, &body_len));
    assert_string_equal(id, "abcd");
    assert_int_equal(body_len, 1);
    bad[8] = 9;   /* longer than what follows */
    assert_false(frame_parse_job(bad, sizeof bad, &seed, id, &body, &body_len));
    bad[8] = (char)(EX_ID_MAX + 1);
    assert_false(frame_parse_job(bad, sizeof bad, &seed, id, &body, &body_len));
    assert_false(frame_parse_job(bad, 8, &seed, id, &body, &body_len));   /* no id byte */
    close(sv[0]);
    close(sv[1]);
}

/* The verdict's header: what the worker writes the supervisor reads, and
 * a header that is not sane (an unknown status or stage, a score over the
 * halves, bytes that are not one JSON object) is refused. */
static void test_verdict_header_round_trip_and_refusals(void **state)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    struct frame_verdict h = { .status = VERDICT_WRONG_ANSWER, .stage = STAGE_RUN, .score = 2,
                               .seed = 0x123456789abcdefull, .cache_hit = true, .kept = true,
                               .dropped = 0xfeedfacecafebeefull,
                               .facts = { .points = 5, .max_points = SCORE_MAX,
                                          .shown = { .halves = { 1, 0, -1 },
                                                     .key = "mistake:twiddle_sign",
                                                     .label = "The twiddle turns the wrong way "
                                                              "\u2014 sign" },
                                          .device = "llvmpipe (LLVM 15.0.6, 256 bits)" } };
    const char *json = "{\"status\":{\"id\":4}}";
    assert_true(frame_write_verdict(sv[0], &h, json, strlen(json)));
    enum frame_type type;
    char *payload;
    size_t len;
    assert_true(frame_read(sv[1], &type, &payload, &len));
    assert_int_equal(type, FRAME_VERDICT);
    struct frame_verdict got;
    const char *bytes;
    size_t nbytes;
    assert_true(frame_parse_verdict(payload, len, &got, &bytes, &nbytes));
    assert_int_equal(got.status, h.status);
    assert_int_equal(got.stage, h.stage);
    assert_int_equal(got.score, h.score);
    assert_true(got.seed == h.seed && got.dropped == h.dropped);
    assert_true(got.cache_hit && got.kept);
    assert_int_equal(nbytes, strlen(json));
    assert_memory_equal(bytes, json, nbytes);
    /* the facts a record keeps, whole */
    assert_int_equal(got.facts.points, 5);
    assert_int_equal(got.facts.max_points, SCORE_MAX);
    assert_memory_equal(got.facts.shown.halves, h.facts.shown.halves, sizeof h.facts.shown.halves);
    assert_string_equal(got.facts.shown.key, h.facts.shown.key);
    assert_string_equal(got.facts.shown.label, h.facts.shown.label);
    assert_string_equal(got.facts.device, h.facts.device);
    /* each field out of range in turn; the facts: the points, a half, a
     * label that is not UTF-8 */
    const size_t facts = FRAME_VERDICT_FIXED, key = facts + 8 + EX_MAX_SWEEP;
    const size_t label = key + VERDICT_FACTS_TEXT;
    const struct { size_t at; unsigned char byte; } bad[] = {
        { 0, 99 },     /* status 99 */
        { 2, STAGE_NSTAGES },
        { 3, 4 },      /* an unknown flag */
        { 4, EX_MAX_SWEEP + 1 },
        { facts, SCORE_MAX + 1 },            /* more points than the most */
        { facts + 4, SCORE_MAX + 1 },        /* a maximum over the task's */
        { facts + 8 + 1, 2 },                /* a half neither right, wrong nor unrun */
        { label + 3, 0xff },                 /* not UTF-8 */
        { label + 31, 0x80 },                /* a character cut: a lone continuation byte */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char *copy = malloc(len);
        memcpy(copy, payload, len);
        copy[bad[k].at] = (char)bad[k].byte;
        assert_false(frame_parse_verdict(copy, len, &got, &bytes, &nbytes));
        free(copy);
    }
    char *copy = malloc(len);   /* a key that fills its array: no NUL */
    memcpy(copy, payload, len);
    memset(copy + key, 'k', VERDICT_FACTS_TEXT);
    assert_false(frame_parse_verdict(copy, len, &got, &bytes, &nbytes));
    free(copy);
    payload[len - 1] = 'x';   /* not an object */
    assert_false(frame_parse_verdict(payload, len, &got, &bytes, &nbytes));
    assert_false(frame_parse_verdict(payload, FRAME_VERDICT_HEAD, &got, &bytes, &nbytes));
    free(payload);
    close(sv[0]);
    close(sv[1]);
}

/* A job's reserved answer (what it answers if memory runs out before its
 * verdict comes) is a verdict on the job's own exercise, and each job owns
 * its copy: one freed leaves another's intact. */
static void test_reserved_answer_is_the_jobs_own(void **state)
{
    const char *ids[] = { "bit_reversal", "butterfly", "bit_reversal" };
    struct job *jobs[3];
    for (size_t i = 0; i < 3; i++) {
        jobs[i] = job_new(exercise_find(ids[i]), "return 0.0;", 11, NULL, 1);
        assert_non_null(jobs[i]);
    }
    assert_true(jobs[0]->result.verdict != jobs[2]->result.verdict);
    job_free(jobs[0]);
    for (size_t i = 1; i < 3; i++) {
        const struct pool_result *r = &jobs[i]->result;
        assert_int_equal(strlen(r->verdict), r->verdict_len);
        struct verdict *v = verdict_from_bytes(r->verdict, r->verdict_len);
        assert_non_null(v);
        assert_int_equal(v->status, VERDICT_INTERNAL_ERROR);
        assert_string_equal(v->task, ids[i]);
        assert_int_equal(r->head.status, VERDICT_INTERNAL_ERROR);
        verdict_free(v);
        job_free(jobs[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_client_is_a_fifo),
        cmocka_unit_test(test_flood_delays_a_bystander_by_one_job),
        cmocka_unit_test(test_round_robin_order),
        cmocka_unit_test(test_a_bystander_goes_before_closed_loop_flooders),
        cmocka_unit_test(test_forgotten_clients_count_as_new),
        cmocka_unit_test(test_remove_and_retry_first),
        cmocka_unit_test(test_wait_estimate),
        cmocka_unit_test(test_loss_blames_only_the_code),
        cmocka_unit_test(test_frames_to_a_closed_peer_fail_without_sigpipe),
        cmocka_unit_test(test_verdict_header_round_trip_and_refusals),
        cmocka_unit_test(test_job_frame_carries_the_exercise),
        cmocka_unit_test(test_reserved_answer_is_the_jobs_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
