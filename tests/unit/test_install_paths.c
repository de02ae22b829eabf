/* Where a program finds its worker and its page: installed, moved, in the build tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "common/install_paths.h"

static const struct install_layout usual = {
    .build_root = "/src/bf/build", .source_root = "/src/bf", .prefix = "/usr/local",
    .bindir = "bin", .libexecdir = "libexec", .datadir = "share",
};

struct path_case {
    const char *exe;
    enum install_item item;
    const char *want;
};

static void check(const struct install_layout *l, const struct path_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char out[INSTALL_PATH_MAX];
        assert_true(install_paths_resolve(l, cases[i].exe, cases[i].item, out, sizeof out));
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("%s: got %s, want %s", cases[i].exe ? cases[i].exe : "(unknown)", out,
                     cases[i].want);
    }
}

static void test_installed_programs_look_beside_themselves(void **state)
{
    static const struct path_case cases[] = {
        { "/usr/local/bin/butterfly-server", INSTALL_WORKER,
          "/usr/local/libexec/butterfly-worker" },
        { "/usr/local/bin/butterfly-server", INSTALL_STATIC_DIR,
          "/usr/local/share/butterfly-grader/static" },
        /* the same tree moved elsewhere: the prefix moves with it */
        { "/opt/grader/bin/butterfly-grade", INSTALL_WORKER, "/opt/grader/libexec/butterfly-worker" },
        { "/tmp/x/stage/usr/local/bin/butterfly-server", INSTALL_STATIC_DIR,
          "/tmp/x/stage/usr/local/share/butterfly-grader/static" },
        /* an install under the build root (a DESTDIR there) is not the build tree */
        { "/src/bf/build/stage/bin/butterfly-server", INSTALL_WORKER,
          "/src/bf/build/stage/libexec/butterfly-worker" },
        /* unknown: the configured prefix */
        { NULL, INSTALL_WORKER, "/usr/local/libexec/butterfly-worker" },
        /* installed with the prefix / */
        { "/bin/butterfly-server", INSTALL_WORKER, "/libexec/butterfly-worker" },
        /* a path with fewer folders than bindir has: the configured prefix */
        { "/butterfly-server", INSTALL_WORKER, "/usr/local/libexec/butterfly-worker" },
    };
    check(&usual, cases, sizeof cases / sizeof cases[0]);
}

static void test_the_build_tree_uses_its_own(void **state)
{
    static const struct path_case cases[] = {
        { "/src/bf/build/server/butterfly-server", INSTALL_WORKER,
          "/src/bf/build/grader/butterfly-worker" },
        { "/src/bf/build/server/butterfly-server", INSTALL_STATIC_DIR, "/src/bf/static" },
        { "/src/bf/build/tests/test_pool", INSTALL_WORKER, "/src/bf/build/grader/butterfly-worker" },
        /* a sibling folder whose name starts like the build root's is not
         * it: its program counts as installed in /src/bf/build-asan */
        { "/src/bf/build-asan/server/butterfly-server", INSTALL_STATIC_DIR,
          "/src/bf/build-asan/share/butterfly-grader/static" },
    };
    check(&usual, cases, sizeof cases / sizeof cases[0]);
    /* once the build tree is gone (NULL), nothing points into it */
    struct install_layout gone = usual;
    gone.build_root = NULL;
    static const struct path_case after[] = {
        { "/src/bf/build/server/butterfly-server", INSTALL_WORKER,
          "/src/bf/build/libexec/butterfly-worker" },
    };
    check(&gone, after, 1);
}

static void test_deeper_and_absolute_directories(void **state)
{
    struct install_layout debian = usual;
    debian.prefix = "/usr";
    debian.bindir = "bin/";
    debian.libexecdir = "lib/x86_64-linux-gnu/butterfly";
    static const struct path_case cases[] = {
        { "/usr/bin/butterfly-server", INSTALL_WORKER,
          "/usr/lib/x86_64-linux-gnu/butterfly/butterfly-worker" },
    };
    check(&debian, cases, 1);

    struct install_layout nested = usual;
    nested.bindir = "opt/tools/bin";
    static const struct path_case deep[] = {
        { "/p/opt/tools/bin/butterfly-server", INSTALL_STATIC_DIR,
          "/p/share/butterfly-grader/static" },
    };
    check(&nested, deep, 1);

    /* directories set outside the prefix stay where they were set */
    struct install_layout outside = usual;
    outside.libexecdir = "/usr/lib/butterfly";
    outside.bindir = "/usr/games";
    static const struct path_case fixed[] = {
        { "/usr/games/butterfly-server", INSTALL_WORKER, "/usr/lib/butterfly/butterfly-worker" },
        { "/usr/games/butterfly-server", INSTALL_STATIC_DIR,
          "/usr/local/share/butterfly-grader/static" },
    };
    check(&outside, fixed, 2);
}

static void test_too_small_a_buffer_is_refused(void **state)
{
    char out[16];
    assert_false(install_paths_resolve(&usual, "/usr/local/bin/butterfly-server", INSTALL_WORKER,
                                       out, sizeof out));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_installed_programs_look_beside_themselves),
        cmocka_unit_test(test_the_build_tree_uses_its_own),
        cmocka_unit_test(test_deeper_and_absolute_directories),
        cmocka_unit_test(test_too_small_a_buffer_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
