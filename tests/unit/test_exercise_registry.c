/* The registry (grader/common/exercise/exercise.c) over a table of its
 * own instead of the build's: LIST's order kept, a second folder of one id
 * left out and said so, a folder that does not load left out with the
 * loader's message, the default the butterfly, and one load however many
 * threads ask first at once. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/exercise/exercise.h"
#include "common/exercise/exercise_embedded.h"

#define DEFINITION(ID, TITLE)                                                                     \
    "{ \"id\": \"" ID "\", \"title\": \"" TITLE "\", \"subtitle\": \"s\",\n"                     \
    "  \"kernel\": { \"function\": \"f\", \"signature\": \"float f() {\",\n"                     \
    "    \"api\": [ { \"name\": \"x\", \"type\": \"int\", \"meaning\": \"m\" } ] },\n"           \
    "  \"input\": { \"name\": \"v\", \"n\": 2, \"planes\": 1,\n"                                 \
    "             \"hidden\": { \"min\": -1, \"max\": 1, \"grid\": 4 } },\n"                     \
    "  \"visible\": [ [1, 2] ], \"output\": { \"n\": 2, \"planes\": 1 },\n"                     \
    "  \"dispatch\": { \"x\": 2, \"y\": 1 }, \"parameter\": { \"name\": \"p\", \"values\": [1] },\n" \
    "  \"hidden_per_value\": 1, \"tolerance\": { \"atol\": 0, \"rtol\": 0 }, \"loop_budget\": 1 }"

static const struct exercise_file files[] = {
    { "README.md", "", 0 },
    { "starter.glsl", "return 0.0;\n", 12 },
    { "solutions/a.glsl", "// expect: accepted\n", 20 },
};

static void reference_one(int param, const float *in, double *out) { out[0] = 1; }
static void reference_two(int param, const float *in, double *out) { out[0] = 2; }

static const char first[] = DEFINITION("scale", "First");
static const char butterfly[] = DEFINITION("butterfly", "The butterfly");
static const char again[] = DEFINITION("scale", "Second of the same id");
static const char broken[] = DEFINITION("broken", "Broken");   /* in a folder of another name */

const struct exercise_embedded exercise_embedded[] = {
    { "exercises/scale", first, sizeof first - 1, files, 3, reference_one },
    { "exercises/butterfly", butterfly, sizeof butterfly - 1, files, 3, reference_two },
    { "exercises/scale", again, sizeof again - 1, files, 3, reference_two },
    { "exercises/other", broken, sizeof broken - 1, files, 3, reference_two },
};
const size_t exercise_embedded_count = sizeof exercise_embedded / sizeof exercise_embedded[0];

static char stderr_text[4096];

static void *ask(void *arg)
{
    return (void *)exercise_find((const char *)arg);
}

/* Many threads ask first at once, with stderr caught: one load, one set
 * of messages, the same answer for all. */
static int load_from_threads(void **state)
{
    char path[] = "/tmp/test_exercise_registry_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    pthread_t threads[16];
    const struct exercise *seen[16];
    for (int i = 0; i < 16; i++)
        pthread_create(&threads[i], NULL, ask, (void *)"scale");
    for (int i = 0; i < 16; i++)
        pthread_join(threads[i], (void **)&seen[i]);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    ssize_t n = pread(fd, stderr_text, sizeof stderr_text - 1, 0);
    stderr_text[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
    for (int i = 1; i < 16; i++)
        if (seen[i] != seen[0] || !seen[0])
            return -1;
    return 0;
}

static void test_list_order_and_the_first_of_an_id(void **state)
{
    assert_int_equal(exercise_count(), 2);
    assert_string_equal(exercise_at(0)->id, "scale");
    assert_string_equal(exercise_at(0)->title, "First");
    assert_ptr_equal(exercise_at(0)->reference, reference_one);
    assert_string_equal(exercise_at(1)->id, "butterfly");
    assert_null(exercise_at(2));
    assert_ptr_equal(exercise_find("scale"), exercise_at(0));
    assert_null(exercise_find("broken"));
    assert_ptr_equal(exercise_default(), exercise_at(1));
}

static void test_what_was_left_out_is_said(void **state)
{
    assert_non_null(strstr(stderr_text, "exercises/LIST: scale: listed twice, the second left out\n"));
    assert_non_null(strstr(stderr_text,
                           "exercises/other/exercise.json: id: must be the folder's name \"other\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_order_and_the_first_of_an_id),
        cmocka_unit_test(test_what_was_left_out_is_said),
    };
    return cmocka_run_group_tests(tests, load_from_threads, NULL);
}
