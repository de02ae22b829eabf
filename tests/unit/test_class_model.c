/*
 * test_class_model.c - the live class view's class in memory
 * (server/class_model.c): who is stuck, what the summary counts, the
 * order of a replay, the gradebook's marks, the facts of a verdict.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/io/frame.h"
#include "common/score.h"
#include "common/verdict.h"
#include "common/verdict_facts.h"
#include "server/class/class_model.h"

static const char wrong_verdict[] =
    "{\"status\":{\"id\":4},\"diagnosis\":{\"id\":\"twiddle_sign\",\"title\":\"The twiddle "
    "turns the wrong way\"},\"halves\":[{\"passed\":true},{\"passed\":false},{\"passed\":false}]}";
static const char compile_verdict[] =
    "{\"status\":{\"id\":6},\"diagnosis\":null,\"diagnostics\":[{\"line\":3,\"message\":"
    "\"missing ';'\"}],\"halves\":[]}";
static const char right_verdict[] =
    "{\"status\":{\"id\":3},\"diagnosis\":null,\"halves\":[{\"passed\":true},{\"passed\":true},"
    "{\"passed\":true}]}";

static unsigned next_id;

/* Adds a record of student at minute t with the verdict's status. */
static long add_of(struct class_model *m, const char *task, const char *student, int minute,
                   int status, const char *verdict)
{
    struct store_record r = { 0 };
    r.task = (char *)task;
    snprintf(r.id, sizeof r.id, "%032x", ++next_id);
    r.student = (char *)student;
    r.received_ms = 1000000 + (int64_t)minute * 60000;
    r.graded_ms = r.received_ms + 20;
    r.status = status;
    r.points = status == VERDICT_ACCEPTED ? 9 : 3;
    r.max_points = 9;
    r.verdict = (char *)verdict;
    r.verdict_len = strlen(verdict);
    return class_model_add(m, &r);
}

/* As add_of, with no task: a record of a store older than exercises. */
static long add(struct class_model *m, const char *student, int minute, int status,
                const char *verdict)
{
    return add_of(m, NULL, student, minute, status, verdict);
}

static json_t *tile_of(struct class_model *m, const char *id)
{
    json_t *t = class_model_tile(m, id, 1000000 + 60 * 60000);
    assert_non_null(t);
    return t;
}

static void test_stuck_by_attempts_over_minutes_and_by_repeats(void **state)
{
    (void)state;
    struct class_thresholds t = { .attempts = 3, .minutes = 5, .repeats = 3 };
    struct class_model *m = class_model_new(&t);
    assert_true(class_model_put_student(m, "ada", "Ada", "L1", true));
    assert_true(class_model_put_student(m, "bob", "Bob", "L2", true));
    /* Ada: three different failures in two minutes: not yet */
    add(m, "ada", 0, VERDICT_COMPILATION_ERROR, compile_verdict);
    add(m, "ada", 1, VERDICT_WRONG_ANSWER, wrong_verdict);
    add(m, "ada", 2, VERDICT_COMPILATION_ERROR, compile_verdict);
    json_t *a = tile_of(m, "ada");
    assert_false(json_is_true(json_object_get(a, "stuck")));
    json_decref(a);
    /* ... and one more six minutes after the first: stuck */
    add(m, "ada", 6, VERDICT_WRONG_ANSWER, wrong_verdict);
    a = tile_of(m, "ada");
    assert_true(json_is_true(json_object_get(a, "stuck")));
    assert_int_equal(json_integer_value(json_object_get(a, "attempts")), 4);
    json_decref(a);
    /* Bob: the same mistake three times in a row, in a minute */
    for (int k = 0; k < 3; k++)
        add(m, "bob", k, VERDICT_WRONG_ANSWER, wrong_verdict);
    json_t *b = tile_of(m, "bob");
    assert_true(json_is_true(json_object_get(b, "stuck")));
    assert_int_equal(json_integer_value(json_object_get(b, "repeats")), 3);
    assert_string_equal(json_string_value(json_object_get(b, "mistake")),
                        "The twiddle turns the wrong way");
    json_decref(b);
    /* passing ends it */
    add(m, "bob", 3, VERDICT_ACCEPTED, right_verdict);
    b = tile_of(m, "bob");
    assert_false(json_is_true(json_object_get(b, "stuck")));
    assert_int_equal(json_integer_value(json_object_get(b, "best_points")), 9);
    json_decref(b);
    class_model_free(m);
}

static void test_summary_counts_and_mistakes(void **state)
{
    (void)state;
    struct class_thresholds t = { .attempts = 5, .minutes = 10, .repeats = 0 };
    struct class_model *m = class_model_new(&t);
    class_model_put_student(m, "a", "A", "", true);
    class_model_put_student(m, "b", "B", "", true);
    class_model_put_student(m, "c", "C", "", true);
    class_model_put_student(m, "quiet", "Q", "", true);
    add(m, "a", 50, VERDICT_WRONG_ANSWER, wrong_verdict);
    add(m, "b", 51, VERDICT_WRONG_ANSWER, wrong_verdict);
    long c1 = add(m, "c", 52, VERDICT_COMPILATION_ERROR, compile_verdict);
    add(m, "c", 53, VERDICT_ACCEPTED, right_verdict);
    add(m, NULL, 53, VERDICT_ACCEPTED, right_verdict);   /* signed out: nobody's */
    assert_true(c1 >= 0);
    json_t *s = class_model_summary(m, NULL, NULL, 1000000 + 55 * 60000);
    assert_int_equal(json_integer_value(json_object_get(s, "students")), 4);
    assert_int_equal(json_integer_value(json_object_get(s, "submitted")), 3);
    assert_int_equal(json_integer_value(json_object_get(s, "accepted")), 1);
    assert_int_equal(json_integer_value(json_object_get(s, "silent")), 1);   /* quiet */
    json_t *top = json_array_get(json_object_get(s, "mistakes"), 0);
    assert_string_equal(json_string_value(json_object_get(top, "key")), "mistake:twiddle_sign");
    assert_int_equal(json_integer_value(json_object_get(top, "count")), 2);
    /* c's compile error is not "right now": c passed since */
    assert_int_equal(json_array_size(json_object_get(s, "mistakes")), 1);
    /* half = 1 passes for all three latest attempts, half = 2 for one */
    json_t *h = json_object_get(s, "halves");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(h, 0), "passed")), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(h, 1), "passed")), 1);
    json_t *series = json_object_get(s, "accepted_series");
    double last = json_real_value(json_object_get(json_array_get(series, json_array_size(series) - 1),
                                                  "share"));
    assert_true(last > 0.24 && last < 0.26);   /* one of four */
    assert_int_equal(json_integer_value(json_object_get(s, "records")), 5);
    json_decref(s);
    /* a launch's class of a and c: its records and its chart only */
    json_t *members = json_pack("{s:b, s:b}", "a", 1, "c", 1);
    s = class_model_summary(m, members, NULL, 1000000 + 55 * 60000);
    assert_int_equal(json_integer_value(json_object_get(s, "students")), 2);
    assert_int_equal(json_integer_value(json_object_get(s, "records")), 3);
    series = json_object_get(s, "accepted_series");
    assert_int_equal(json_array_size(series), 3);   /* a step per record of theirs */
    json_t *first = json_array_get(series, 0), *end = json_array_get(series, 2);
    assert_true(json_real_value(json_object_get(first, "share")) == 0.0);   /* a: wrong */
    last = json_real_value(json_object_get(end, "share"));
    assert_true(last > 0.49 && last < 0.51);   /* c of a and c */
    json_decref(s);
    json_decref(members);
    class_model_free(m);
}

static void test_replay_order_and_ids(void **state)
{
    (void)state;
    struct class_thresholds t = { 5, 10, 3 };
    struct class_model *m = class_model_new(&t);
    long first = add(m, "x", 0, VERDICT_WRONG_ANSWER, wrong_verdict);
    long second = add(m, "x", 1, VERDICT_WRONG_ANSWER, wrong_verdict);
    assert_int_equal(class_model_count(m), 2);
    const char *id = class_model_record_id(m, (size_t)first);
    assert_int_equal(class_model_find(m, id), first);
    /* after the first: the second (graded a minute later: outside the slack) */
    assert_int_equal(class_model_replay_from(m, (size_t)first, 5000), (size_t)second);
    /* a record added twice is one */
    struct store_record again = { 0 };
    snprintf(again.id, sizeof again.id, "%s", id);
    again.verdict = (char *)wrong_verdict;
    again.verdict_len = strlen(wrong_verdict);
    assert_int_equal(class_model_add(m, &again), -1);
    assert_int_equal(class_model_find(m, "nope"), -1);
    json_t *e = class_model_event(m, (size_t)second, 0);
    assert_string_equal(json_string_value(json_object_get(e, "mistake_key")),
                        "mistake:twiddle_sign");
    json_decref(e);
    class_model_free(m);
}

/* A forgotten student leaves the class: their tile, their records, the
 * counts; the others' records keep their order, ids and tiles (the last
 * student takes the forgotten one's place inside). */
static void test_forget_removes_the_student_and_their_records(void **state)
{
    (void)state;
    struct class_thresholds t = { 5, 10, 3 };
    struct class_model *m = class_model_new(&t);
    assert_true(class_model_put_student(m, "a", "Ann", "A", true));
    assert_true(class_model_put_student(m, "f", "Fay", "A", true));
    assert_true(class_model_put_student(m, "z", "Zed", "B", true));
    long a1 = add(m, "a", 0, VERDICT_WRONG_ANSWER, wrong_verdict);
    long f1 = add(m, "f", 1, VERDICT_WRONG_ANSWER, wrong_verdict);
    long z1 = add(m, "z", 2, VERDICT_ACCEPTED, right_verdict);
    long f2 = add(m, "f", 3, VERDICT_ACCEPTED, right_verdict);
    char ida[STORE_ID_SIZE], idf1[STORE_ID_SIZE], idz[STORE_ID_SIZE], idf2[STORE_ID_SIZE];
    snprintf(ida, sizeof ida, "%s", class_model_record_id(m, (size_t)a1));
    snprintf(idf1, sizeof idf1, "%s", class_model_record_id(m, (size_t)f1));
    snprintf(idz, sizeof idz, "%s", class_model_record_id(m, (size_t)z1));
    snprintf(idf2, sizeof idf2, "%s", class_model_record_id(m, (size_t)f2));

    assert_true(class_model_forget(m, "f"));
    assert_false(class_model_forget(m, "f"));      /* once */
    assert_false(class_model_forget(m, "nobody"));
    assert_false(class_model_has_student(m, "f"));
    assert_null(class_model_tile(m, "f", 0));
    assert_int_equal(class_model_count(m), 2);
    assert_false(class_model_has_record(m, idf1));
    assert_false(class_model_has_record(m, idf2));
    /* the others' records, in their order, still their own */
    assert_int_equal(class_model_find(m, ida), 0);
    assert_int_equal(class_model_find(m, idz), 1);
    assert_string_equal(class_model_record_student(m, 0), "a");
    assert_string_equal(class_model_record_student(m, 1), "z");
    json_t *zed = tile_of(m, "z");
    assert_string_equal(json_string_value(json_object_get(zed, "name")), "Zed");
    assert_int_equal(json_integer_value(json_object_get(zed, "attempts")), 1);
    json_decref(zed);
    json_t *sum = class_model_summary(m, NULL, NULL, 0);
    assert_int_equal(json_integer_value(json_object_get(sum, "students")), 2);
    assert_int_equal(json_integer_value(json_object_get(sum, "records")), 2);
    json_decref(sum);
    /* and the class goes on: a new record of a known student, a new student */
    long a2 = add(m, "a", 4, VERDICT_ACCEPTED, right_verdict);
    assert_int_equal(a2, 2);
    assert_string_equal(class_model_record_student(m, 2), "a");
    assert_true(class_model_put_student(m, "n", "Neo", "B", true));
    assert_true(class_model_has_student(m, "z") && class_model_has_student(m, "n"));
    class_model_free(m);
}

static void test_gradebook_marks_unverified_and_defuses_formulas(void **state)
{
    (void)state;
    struct class_thresholds t = { 5, 10, 3 };
    struct class_model *m = class_model_new(&t);
    class_model_put_student(m, "g1", "=HYPERLINK(\"x\")", "", false);
    add(m, "g1", 0, VERDICT_ACCEPTED, right_verdict);
    size_t n = 0;
    char *csv = class_model_gradebook_csv(m, NULL, &n);
    assert_non_null(csv);
    assert_non_null(strstr(csv, "no (unverified name)"));
    assert_null(strstr(csv, ",=HYPERLINK"));
    assert_null(strstr(csv, ",\"=HYPERLINK"));
    free(csv);
    class_model_free(m);
}

/* One verdict's record added to m by its JSON (as a record read back from
 * the store is) or by the facts of the verdict parsed (as a record this
 * instance commits is); its event. */
static json_t *event_of(struct class_model *m, const struct verdict *v, bool by_facts)
{
    size_t len = 0;
    char *bytes = verdict_to_bytes(v, &len);
    assert_non_null(bytes);
    struct store_record r = { 0 };
    snprintf(r.id, sizeof r.id, "%032x", 7u);
    r.student = "ada";
    r.received_ms = 1000000;
    r.graded_ms = 1000020;
    r.status = (int)v->status;
    r.points = 3;
    r.max_points = 9;
    long i;
    if (by_facts) {
        /* as the worker makes them from its verdict, and the frame carries them */
        struct verdict *parsed = verdict_from_bytes(bytes, len);
        assert_non_null(parsed);
        struct frame_verdict head, back;
        frame_verdict_of(parsed, &head);
        verdict_facts_of(parsed, &head.facts);
        struct score sc;
        score_verdict(parsed, &sc);
        char device[sizeof parsed->device_name];
        memcpy(device, parsed->device_name, sizeof device);
        verdict_free(parsed);
        int fds[2];
        assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
        assert_true(frame_write_verdict(fds[1], &head, bytes, len));
        enum frame_type type;
        char *payload;
        size_t plen, json_len;
        const char *json;
        assert_true(frame_read(fds[0], &type, &payload, &plen));
        assert_int_equal(type, FRAME_VERDICT);
        assert_true(frame_parse_verdict(payload, plen, &back, &json, &json_len));
        assert_int_equal(json_len, len);
        /* what a record keeps: the same as parsing the bytes gives */
        assert_int_equal(back.facts.points, sc.score);
        assert_int_equal(back.facts.max_points, sc.max_score);
        assert_string_equal(back.facts.device, device);
        free(payload);
        close(fds[0]);
        close(fds[1]);
        i = class_model_add_facts(m, &r, &back.facts.shown);
    } else {
        r.verdict = bytes;
        r.verdict_len = len;
        i = class_model_add(m, &r);
    }
    free(bytes);
    assert_true(i >= 0);
    return class_model_event(m, (size_t)i, 1000000 + 60000);
}

static void test_facts_of_a_parsed_verdict_are_those_of_its_json(void **state)
{
    (void)state;
    struct verdict *wrong = verdict_new(VERDICT_WRONG_ANSWER, "half = 2 is wrong");
    wrong->diagnosis = diagnosis_new("twiddle_sign", "The twiddle turns the wrong way", "e", "h");
    wrong->halves_run = 3;
    wrong->halves[0] = (struct half_result){ .half = 1, .passed = true };
    wrong->halves[1] = (struct half_result){ .half = 2, .passed = false };
    wrong->halves[2] = (struct half_result){ .half = 4, .passed = false };
    snprintf(wrong->device_name, sizeof wrong->device_name, "llvmpipe (LLVM 15.0.6, 256 bits)");
    struct verdict *compile = verdict_new(VERDICT_COMPILATION_ERROR, "It does not compile.");
    assert_true(verdict_add_diagnostic(compile, 3, DIAG_ERROR, "'x' : undeclared identifier"));
    assert_true(verdict_add_diagnostic(compile, 4, DIAG_ERROR, "the second"));
    struct verdict *right = verdict_new(VERDICT_ACCEPTED, NULL);
    right->halves_run = 2;   /* a verdict that ran two halves: the third is "not run" */
    right->halves[0] = (struct half_result){ .half = 1, .passed = true };
    right->halves[1] = (struct half_result){ .half = 2, .passed = true };
    const struct verdict *all[] = { wrong, compile, right };
    struct class_thresholds t = { 5, 10, 3 };
    for (size_t k = 0; k < 3; k++) {
        struct class_model *a = class_model_new(&t), *b = class_model_new(&t);
        json_t *from_json = event_of(a, all[k], false), *from_facts = event_of(b, all[k], true);
        assert_true(json_equal(from_json, from_facts));
        json_decref(from_json);
        json_decref(from_facts);
        class_model_free(a);
        class_model_free(b);
    }
    /* and they are what the view shows */
    struct verdict_facts f;
    verdict_facts_of(wrong, &f);
    assert_string_equal(f.shown.key, "mistake:twiddle_sign");
    assert_string_equal(f.shown.label, "The twiddle turns the wrong way");
    assert_int_equal(f.shown.halves[0], 1);
    assert_int_equal(f.shown.halves[1], 0);
    verdict_facts_of(compile, &f);
    assert_string_equal(f.shown.key, "compile:'x' : undeclared identifier");
    verdict_facts_of(right, &f);
    assert_string_equal(f.shown.key, "");
    assert_int_equal(f.shown.halves[2], -1);
    verdict_free(wrong);
    verdict_free(compile);
    verdict_free(right);
}

/* Facts made from any verdict pass the supervisor's check: long texts are
 * cut between characters, bytes that are not UTF-8 become '?'. */
static void test_facts_of_any_verdict_are_sane(void **state)
{
    (void)state;
    struct verdict *v = verdict_new(VERDICT_COMPILATION_ERROR, "It does not compile.");
    char message[400];
    size_t n = 0;
    while (n + 3 < sizeof message - 1) {   /* em dashes across the 160-byte cut */
        memcpy(message + n, "\xe2\x80\x94", 3);
        n += 3;
    }
    message[n] = '\0';
    assert_true(verdict_add_diagnostic(v, 1, DIAG_ERROR, message));
    snprintf(v->device_name, sizeof v->device_name, "GPU \xff\xfe name \xe2\x80");
    struct verdict_facts f;
    verdict_facts_of(v, &f);
    assert_true(verdict_facts_sane(&f));
    assert_string_equal(f.device, "GPU ?? name ??");
    assert_int_equal(strlen(f.shown.label) % 3, 0);     /* whole dashes only */
    assert_true(strlen(f.shown.label) >= VERDICT_FACTS_TEXT - 3);
    assert_int_equal(strncmp(f.shown.key, "compile:", 8), 0);
    verdict_free(v);
}

/* The JSON integer at key of o, -1 when it is none. */
static long long int_at(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

/* The tile of student id among GET /api/class/students?task=task's. */
static json_t *tile_in(struct class_model *m, const char *task, const char *id)
{
    json_t *all = class_model_students(m, NULL, task, 1000000 + 60 * 60000);
    json_t *a = json_object_get(all, "students");
    for (size_t i = 0; i < json_array_size(a); i++) {
        json_t *t = json_array_get(a, i);
        if (!strcmp(json_string_value(json_object_get(t, "id")), id)) {
            json_incref(t);
            json_decref(all);
            return t;
        }
    }
    fail_msg("no tile of %s", id);
    return NULL;
}

/* Two exercises' records (one with no task: the default's): ?task=
 * counts one's alone, the tiles' progress holds a cell per exercise,
 * the summary one entry per exercise, the gradebook a column each. */
static void test_exercises_kept_apart(void **state)
{
    (void)state;
    struct class_thresholds t = { .attempts = 50, .minutes = 60, .repeats = 3 };
    struct class_model *m = class_model_new(&t);
    class_model_put_student(m, "ann", "Ann", "", true);
    class_model_put_student(m, "bob", "Bob", "", true);
    add(m, "ann", 1, VERDICT_WRONG_ANSWER, wrong_verdict);
    add_of(m, "butterfly", "ann", 2, VERDICT_WRONG_ANSWER, wrong_verdict);
    long bits = add_of(m, "bit_reversal", "ann", 3, VERDICT_ACCEPTED, right_verdict);
    add_of(m, "butterfly", "ann", 4, VERDICT_WRONG_ANSWER, wrong_verdict);
    add_of(m, "bit_reversal", "bob", 5, VERDICT_COMPILATION_ERROR, compile_verdict);
    assert_true(bits >= 0);

    /* every exercise together: Ann's three butterfly repeats are broken
     * by her bit_reversal Accepted */
    json_t *ann = tile_in(m, NULL, "ann");
    assert_int_equal(int_at(ann, "attempts"), 4);
    assert_true(json_is_true(json_object_get(ann, "accepted")));
    json_t *pb = json_object_get(json_object_get(ann, "progress"), "butterfly");
    json_t *pr = json_object_get(json_object_get(ann, "progress"), "bit_reversal");
    assert_int_equal(int_at(pb, "attempts"), 3);
    assert_int_equal(int_at(pb, "best_points"), 3);
    assert_false(json_is_true(json_object_get(pb, "accepted")));
    assert_int_equal(int_at(pr, "attempts"), 1);
    assert_int_equal(int_at(pr, "best_points"), 9);
    assert_true(json_is_true(json_object_get(pr, "accepted")));
    json_decref(ann);

    /* the butterfly alone: three attempts, the same mistake three times
     * in a row (the bit_reversal between them is another exercise's): stuck */
    ann = tile_in(m, "butterfly", "ann");
    assert_int_equal(int_at(ann, "attempts"), 3);
    assert_false(json_is_true(json_object_get(ann, "accepted")));
    assert_int_equal(int_at(ann, "repeats"), 3);
    assert_true(json_is_true(json_object_get(ann, "stuck")));
    assert_string_equal(json_string_value(json_object_get(ann, "mistake_key")),
                        "mistake:twiddle_sign");
    json_decref(ann);
    json_t *bob = tile_in(m, "butterfly", "bob");
    assert_int_equal(int_at(bob, "attempts"), 0);
    assert_true(json_is_null(json_object_get(bob, "last_status")));
    json_decref(bob);
    bob = tile_in(m, "bit_reversal", "bob");
    assert_int_equal(int_at(bob, "attempts"), 1);
    assert_string_equal(json_string_value(json_object_get(bob, "mistake_key")),
                        "compile:missing ';'");
    json_decref(bob);

    /* the summary of one exercise, of another, of one with no record */
    static const struct { const char *task; long long submitted, accepted, records; } want[] = {
        { NULL, 2, 1, 5 }, { "butterfly", 1, 0, 3 }, { "bit_reversal", 2, 1, 2 },
        { "twiddle", 0, 0, 0 },
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        json_t *s = class_model_summary(m, NULL, want[k].task, 1000000 + 6 * 60000);
        assert_int_equal(int_at(s, "submitted"), want[k].submitted);
        assert_int_equal(int_at(s, "accepted"), want[k].accepted);
        assert_int_equal(int_at(s, "records"), want[k].records);
        json_t *top = json_array_get(json_object_get(s, "mistakes"), 0);
        if (want[k].task && !strcmp(want[k].task, "butterfly"))
            assert_int_equal(int_at(top, "count"), 1);
        if (want[k].task && !strcmp(want[k].task, "twiddle"))
            assert_null(top);
        /* a summary per exercise, whatever the filter: the built-in first */
        json_t *ex = json_object_get(s, "exercises");
        assert_int_equal(json_array_size(ex), 3);   /* the three built in */
        json_t *e0 = json_array_get(ex, 0), *e1 = json_array_get(ex, 1);
        assert_string_equal(json_string_value(json_object_get(e0, "id")), "butterfly");
        assert_true(json_is_true(json_object_get(e0, "built_in")));
        assert_int_equal(int_at(e0, "records"), 3);
        assert_int_equal(int_at(e0, "accepted"), 0);
        assert_string_equal(json_string_value(json_object_get(e1, "id")), "bit_reversal");
        assert_true(json_is_true(json_object_get(e1, "built_in")));
        assert_int_equal(int_at(e1, "submitted"), 2);
        assert_int_equal(int_at(e1, "accepted"), 1);
        json_decref(s);
    }

    /* the live event names its exercise */
    json_t *ev = class_model_event(m, (size_t)bits, 0);
    assert_string_equal(json_string_value(json_object_get(ev, "task")), "bit_reversal");
    json_decref(ev);
    ev = class_model_event(m, 0, 0);
    assert_string_equal(json_string_value(json_object_get(ev, "task")), "butterfly");
    json_decref(ev);

    /* the gradebook: a column per exercise, the best at each */
    size_t len = 0;
    char *csv = class_model_gradebook_csv(m, NULL, &len);
    assert_non_null(csv);
    assert_non_null(strstr(csv, ",late,butterfly,bit_reversal,butterfly16\r\n"));
    assert_non_null(strstr(csv, "\r\nann,Ann,,yes,4,9,9,yes,Wrong Answer,0,3,9,\r\n"));
    assert_non_null(strstr(csv, "\r\nbob,Bob,,yes,1,3,9,no,Compilation Error,0,,3,\r\n"));
    free(csv);
    class_model_free(m);
}

/* The booleans (null: not run) of an event's halves, as "1100-" text. */
static void marks_of(const json_t *halves, char *out, size_t size)
{
    size_t n = 0;
    for (size_t k = 0; k < json_array_size(halves) && n + 1 < size; k++) {
        const json_t *x = json_array_get(halves, k);
        out[n++] = json_is_null(x) ? '-' : json_is_true(x) ? '1' : '0';
    }
    out[n] = '\0';
}

/* The summary's entries as "param=value:passed/run ..." text. */
static void tallies_of(const json_t *summary, char *out, size_t size)
{
    const json_t *h = json_object_get(summary, "halves");
    size_t n = 0;
    out[0] = '\0';
    for (size_t k = 0; k < json_array_size(h) && n < size; k++) {
        const json_t *x = json_array_get(h, k);
        n += (size_t)snprintf(out + n, size - n, "%s%s=%lld:%lld/%lld", k ? " " : "",
                              json_string_value(json_object_get(x, "param")),
                              int_at(x, "half"), int_at(x, "passed"), int_at(x, "run"));
    }
}

/* butterfly16 sweeps half = 1, 2, 4, 8: its events carry four marks, from
 * the worker's facts or the verdict's JSON alike, and its summary a line
 * per value, half = 8 included; the butterfly's stay three. */
static void test_four_marks_of_butterfly16(void **state)
{
    (void)state;
    struct class_thresholds t = { .attempts = 50, .minutes = 60, .repeats = 3 };
    struct class_model *m = class_model_new(&t);
    class_model_put_student(m, "ann", "Ann", "", true);
    class_model_put_student(m, "bob", "Bob", "", true);
    class_model_put_student(m, "cy", "Cy", "", true);
    static const char four[] =
        "{\"status\":{\"id\":4},\"halves\":[{\"passed\":true},{\"passed\":true},"
        "{\"passed\":true},{\"passed\":false}]}";
    long a = add_of(m, "butterfly16", "ann", 1, VERDICT_WRONG_ANSWER, four);
    struct store_record r = { 0 };
    r.task = (char *)"butterfly16";
    snprintf(r.id, sizeof r.id, "%032x", ++next_id);
    r.student = (char *)"bob";
    r.received_ms = r.graded_ms = 1000000 + 2 * 60000;
    r.status = VERDICT_WRONG_ANSWER;
    struct verdict_shown f = { .halves = { 0, 1, 1, 1 } };
    long b = class_model_add_facts(m, &r, &f);
    long c = add_of(m, "butterfly", "cy", 3, VERDICT_WRONG_ANSWER, wrong_verdict);
    assert_true(a >= 0 && b >= 0 && c >= 0);
    char got[256];
    json_t *e = class_model_event(m, (size_t)a, 0);
    marks_of(json_object_get(e, "halves"), got, sizeof got);
    assert_string_equal(got, "1110");
    json_decref(e);
    e = class_model_event(m, (size_t)b, 0);
    marks_of(json_object_get(e, "halves"), got, sizeof got);
    assert_string_equal(got, "0111");
    json_decref(e);
    e = class_model_event(m, (size_t)c, 0);
    marks_of(json_object_get(e, "halves"), got, sizeof got);
    assert_string_equal(got, "100");
    json_decref(e);
    json_t *s = class_model_summary(m, NULL, "butterfly16", 0);
    tallies_of(s, got, sizeof got);
    assert_string_equal(got, "half=1:1/2 half=2:2/2 half=4:2/2 half=8:1/2");
    json_decref(s);
    /* every exercise: a value two exercises share is one line; an
     * exercise no latest attempt is of has none (but the default's) */
    s = class_model_summary(m, NULL, NULL, 0);
    tallies_of(s, got, sizeof got);
    assert_string_equal(got, "half=1:2/3 half=2:2/3 half=4:2/3 half=8:1/2");
    json_decref(s);
    /* bit_reversal's bits are not halves */
    add_of(m, "bit_reversal", "cy", 4, VERDICT_ACCEPTED, right_verdict);
    s = class_model_summary(m, NULL, NULL, 0);
    tallies_of(s, got, sizeof got);
    assert_string_equal(got, "half=1:1/2 half=2:2/2 half=4:2/2 half=8:1/2 "
                             "bits=2:1/1 bits=3:1/1 bits=4:1/1");
    json_decref(s);
    class_model_free(m);
    /* an empty class: the default exercise's values, none run */
    m = class_model_new(&t);
    s = class_model_summary(m, NULL, NULL, 0);
    tallies_of(s, got, sizeof got);
    assert_string_equal(got, "half=1:0/0 half=2:0/0 half=4:0/0");
    json_decref(s);
    class_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stuck_by_attempts_over_minutes_and_by_repeats),
        cmocka_unit_test(test_summary_counts_and_mistakes),
        cmocka_unit_test(test_replay_order_and_ids),
        cmocka_unit_test(test_forget_removes_the_student_and_their_records),
        cmocka_unit_test(test_gradebook_marks_unverified_and_defuses_formulas),
        cmocka_unit_test(test_facts_of_a_parsed_verdict_are_those_of_its_json),
        cmocka_unit_test(test_facts_of_any_verdict_are_sane),
        cmocka_unit_test(test_exercises_kept_apart),
        cmocka_unit_test(test_four_marks_of_butterfly16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
