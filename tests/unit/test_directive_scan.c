/*
 * The body checks against glslang itself: a directive the harness owns
 * must be refused whenever glslang's preprocessor would act on it. First
 * the cases that got past the old checks (a string holding a comment
 * opener, a string longer than glslang's token limit, comments and
 * newline forms around the '#'), then thousands of bodies built from the
 * pieces that confuse scanners: quotes, apostrophes, escapes, comment
 * openers, continuations and every newline form.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/checks/source_check.h"
#include "tests/support/glslang_oracle.h"

/* Whether the body checks refuse s for a forbidden directive. */
static bool refused(const char *s, size_t len, int *line)
{
    char msg[256] = "";
    int l = 0;
    bool ok = source_check(s, len, &l, msg, sizeof msg);
    if (line)
        *line = l;
    return !ok && strstr(msg, "is not allowed");
}

static void agree(const char *s, size_t len)
{
    char what[512] = "";
    bool acts = glslang_acts_on_directive(s, len, what, sizeof what);
    if (acts && !refused(s, len, NULL))
        fail_msg("glslang acts on a directive the checks let through (%s) in:\n%.*s", what,
                 (int)len, s);
}

struct known {
    const char *body;
    bool refuse;
    int line;
};

static void test_known_cases(void **state)
{
    static const struct known cases[] = {
        /* a string is a token: "/ *" in it opens no comment */
        { "#define S \"/*\"\n#extension GL_EXT_spirv_intrinsics : enable\nreturn 0.0;\n", true, 2 },
        { "#define S \"/*\"\n#line 40\nreturn 0.0;\n", true, 2 },
        { "#define S \"/*\"\n#pragma debug(on)\nreturn 0.0;\n", true, 2 },
        /* an escaped quote does not end the string */
        { "#define S \"a\\\"/*\"\n#extension GL_EXT_debug_printf : enable\nreturn 0.0;\n", true, 2 },
        /* a block comment, even over lines, leaves the '#' at the line's start */
        { "/* a\n b */ #extension GL_EXT_debug_printf : enable\nreturn 0.0;\n", true, 2 },
        /* a lone CR, CR LF, and continuations inside the name */
        { "return 0.0;\r#extension GL_EXT_debug_printf : enable\n", true, 1 },
        { "return 0.0;\r\n#ext\\\r\nension GL_EXT_debug_printf : enable\n", true, 2 },
        /* an apostrophe is a token of its own: what follows is code */
        { "float x = 1.0; // it's\n#version 460\nreturn x;\n", true, 2 },
        /* not directives: after another token, in a comment, in a string */
        { "float x = 1.0; #extension GL_EXT_debug_printf : enable\nreturn x;\n", false, 0 },
        { "/*\n#extension GL_EXT_debug_printf : enable\n*/\nreturn 0.0;\n", false, 0 },
        { "// \\\n#extension GL_EXT_debug_printf : enable\nreturn 0.0;\n", false, 0 },
        { "#define S \"#extension x\"\nreturn 0.0;\n", false, 0 },
        { "#define TWO 2.0\n#if 1\nreturn TWO;\n#endif\n", false, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int line = 0;
        bool got = refused(cases[i].body, strlen(cases[i].body), &line);
        if (got != cases[i].refuse || (got && line != cases[i].line))
            fail_msg("case %zu: refused %d on line %d, wanted %d on line %d:\n%s", i, got, line,
                     cases[i].refuse, cases[i].line, cases[i].body);
        agree(cases[i].body, strlen(cases[i].body));
    }
}

/* A string of 1,030 characters: glslang ends it after 1,024, so its last
 * quote opens a new string, and the "/ *" after it is outside any. */
static void test_long_string_ends_at_the_token_limit(void **state)
{
    char body[2048];
    size_t n = (size_t)snprintf(body, sizeof body, "#define S \"");
    memset(body + n, 'A', 1030);
    n += 1030;
    n += (size_t)snprintf(body + n, sizeof body - n,
                          "\"/*\"\n#extension GL_EXT_debug_printf : enable\nreturn 0.0;\n");
    int line = 0;
    assert_true(refused(body, n, &line));
    assert_int_equal(line, 2);
    agree(body, n);
}

static uint64_t next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Bodies made of the pieces scanners get wrong, checked against glslang. */
static void test_generated_bodies_agree_with_glslang(void **state)
{
    static const char *const pieces[] = {
        "\"", "'", "/*", "*/", "//", "\\", "\\\n", "\\\r\n", "\\\r", "\n", "\r", "\r\n",
        "\n\r", " ", "\t", "\f", "x", ";", "1.0", "\\x4", "\\0", "\\\\", "\\\"",
        "#define S ", "#define F(a) a\n", "#if 0\n", "#endif\n",
        "#extension GL_EXT_debug_printf : enable", "#line 7", "#pragma debug(on)",
        "#version 460", "#include \"x\"", "# extension GL_EXT_debug_printf : enable",
        "#/**/pragma debug(on)",
    };
    const size_t npieces = sizeof pieces / sizeof pieces[0];
    uint64_t seed = 20261130;
    char *body = malloc(8192);
    unsigned acted = 0, refusals = 0, both = 0;
    const unsigned n = 3000;
    for (unsigned k = 0; k < n; k++) {
        size_t len = 0;
        unsigned count = 2 + (unsigned)(next(&seed) % 9);
        for (unsigned i = 0; i < count; i++) {
            const char *p = pieces[next(&seed) % npieces];
            size_t pl = strlen(p);
            if (next(&seed) % 40 == 0) {   /* now and then, past the token limit */
                memset(body + len, 'A', 1030);
                len += 1030;
            }
            memcpy(body + len, p, pl);
            len += pl;
        }
        memcpy(body + len, "\nreturn 0.0;\n", 13);
        len += 13;
        char what[512] = "";
        bool acts = glslang_acts_on_directive(body, len, what, sizeof what);
        bool ours = refused(body, len, NULL);
        acted += acts;
        refusals += ours;
        both += acts && ours;
        if (acts && !ours)
            fail_msg("body %u: glslang acts on a directive the checks let through (%s):\n%.*s",
                     k, what, (int)len, body);
    }
    print_message("%u bodies: glslang acted on a directive in %u, the checks refused %u "
                  "(%u of them more than glslang would act on)\n", n, acted, refusals,
                  refusals - both);
    assert_true(acted > n / 10);   /* the generator does make directives */
    free(body);
}

static int teardown(void **state)
{
    glslang_oracle_done();
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_cases),
        cmocka_unit_test(test_long_string_ends_at_the_token_limit),
        cmocka_unit_test(test_generated_bodies_agree_with_glslang),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
