/*
 * The batch's pieces without a device: the CSV reader and writer (with
 * ';', a byte-order mark, the delimiter sniffed, formula cells), ids and
 * their names on disk, SHA-256, the scoring, the summary's normalising,
 * Canvas's and Moodle's files with a column per exercise.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/task.h"
#include "batch/batch_progress.h"
#include "common/score.h"
#include "batch/batch_sha256.h"
#include "batch/input/batch_id.h"
#include "batch/input/batch_input_db.h"
#include "batch/input/csv.h"
#include "batch/reports/batch_roster.h"
#include "batch/reports/batch_summary.h"
#include "common/defaults.h"
#include "gradebook/canvas.h"
#include "gradebook/csv_write.h"
#include "gradebook/moodle.h"
#include "gradebook/roster.h"
#include "gradebook/student_id.h"

/* --- CSV -------------------------------------------------------------- */

struct parsed {
    enum csv_status st;
    size_t n;
    unsigned long line;
    bool dropped;
    char fields[8][64];
    bool truncated[8];
};

/* Reads every record of text, fields separated by delim, into out (at
 * most max); returns the count. */
static size_t parse_with(const char *text, char delim, size_t max_field, size_t max_fields,
                         struct parsed *out, size_t max)
{
    FILE *f = fmemopen((void *)text, strlen(text), "rb");
    assert_non_null(f);
    struct csv_reader *r = csv_reader_new(f, delim, max_field, max_fields);
    assert_non_null(r);
    size_t k = 0;
    for (; k < max; k++) {
        const struct csv_field *fl;
        struct parsed *p = &out[k];
        p->st = csv_reader_next(r, &fl, &p->n, &p->line, &p->dropped);
        if (p->st == CSV_EOF || p->st == CSV_IO_ERROR)
            break;
        for (size_t i = 0; i < p->n && i < 8; i++) {
            snprintf(p->fields[i], sizeof p->fields[i], "%s", fl[i].data);
            p->truncated[i] = fl[i].truncated;
        }
    }
    csv_reader_free(r);
    fclose(f);
    return k;
}

static size_t parse(const char *text, size_t max_field, size_t max_fields,
                    struct parsed *out, size_t max)
{
    return parse_with(text, ',', max_field, max_fields, out, max);
}

static void test_csv_reads_rfc4180(void **state)
{
    struct parsed p[8];
    size_t n = parse("id,source\r\n"
                     "alice,\"a, \"\"quoted\"\"\r\nvalue\"\r\n"
                     "bob,plain\n"
                     "\n"
                     "carol,,\"\"\n", 1024, 8, p, 8);
    assert_int_equal(n, 5);
    assert_int_equal(p[0].n, 2);
    assert_string_equal(p[0].fields[1], "source");
    assert_int_equal(p[1].line, 2);
    assert_string_equal(p[1].fields[0], "alice");
    assert_string_equal(p[1].fields[1], "a, \"quoted\"\r\nvalue");
    assert_int_equal(p[2].line, 4);
    assert_string_equal(p[2].fields[1], "plain");
    assert_int_equal(p[3].n, 1);             /* the blank line: one empty field */
    assert_string_equal(p[3].fields[0], "");
    assert_int_equal(p[4].line, 6);
    assert_int_equal(p[4].n, 3);
    assert_string_equal(p[4].fields[2], "");
}

static void test_csv_bounds_and_unclosed_quote(void **state)
{
    struct parsed p[4];
    size_t n = parse("a,b,c,d\n0123456789,x\n\"open,never closed\n", 4, 3, p, 4);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].n, 3);
    assert_true(p[0].dropped);
    assert_string_equal(p[1].fields[0], "0123");
    assert_true(p[1].truncated[0]);
    assert_false(p[1].truncated[1]);
    assert_int_equal(p[2].st, CSV_UNCLOSED);
    assert_int_equal(p[2].line, 3);
}

static void test_csv_writes_quotes_and_guards_formulas(void **state)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char *row[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "=1+2", "-3", " pad" };
    csv_write_row(f, row, 7, 1ul << 4);   /* only field 4 is outside text */
    fclose(f);
    assert_string_equal(buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",'=1+2,-3,\" pad\"\r\n");
    /* and it reads back */
    struct parsed p[2];
    assert_int_equal(parse(buf, 64, 8, p, 2), 1);
    assert_int_equal(p[0].n, 7);
    assert_string_equal(p[0].fields[2], "say \"hi\"");
    assert_string_equal(p[0].fields[3], "two\nlines");
    free(buf);
}

static void test_csv_semicolons_and_byte_order_mark(void **state)
{
    struct parsed p[4];
    /* what a spreadsheet set to German or French writes: a mark, ';' */
    size_t n = parse_with("\xef\xbb\xbfid;source\r\nalice;\"a; b, c\"\r\nbob;1,5\r\n", ';',
                          64, 8, p, 4);
    assert_int_equal(n, 3);
    assert_string_equal(p[0].fields[0], "id");        /* the mark is not part of the name */
    assert_string_equal(p[1].fields[1], "a; b, c");
    assert_int_equal(p[2].n, 2);
    assert_string_equal(p[2].fields[1], "1,5");       /* a comma is text here */
    /* bytes that only start like a mark are data */
    n = parse("\xef\xbbX,y\n", 64, 8, p, 4);
    assert_int_equal(n, 1);
    assert_string_equal(p[0].fields[0], "\xef\xbbX");
    n = parse("\xef", 64, 8, p, 4);
    assert_int_equal(n, 1);
    assert_string_equal(p[0].fields[0], "\xef");
}

static void test_csv_sniffs_the_delimiter(void **state)
{
    static const struct { const char *head; char want; } cases[] = {
        { "id,source\n", ',' },
        { "id;source\n", ';' },
        { "\xef\xbb\xbfStudent;ID;SIS User ID;SIS Login ID;Section\r\n", ';' },
        { "Student,ID,SIS User ID,SIS Login ID,Section\r\n", ',' },
        { "\"a;b;c\",id,source\n", ',' },           /* quoted ones do not count */
        { "id;source\nx,y,z,w,v\n", ';' },            /* the header alone decides */
        { "\"x\"\"y;z\";id,code\n", ',' },          /* a doubled quote stays inside */
        { "", ',' },
        { "id\n", ',' },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        assert_int_equal(csv_sniff_delimiter(cases[i].head, strlen(cases[i].head)),
                         cases[i].want);
    /* a file is sought back to where it was */
    const char *text = "id;source\nalice;x\n";
    FILE *f = fmemopen((void *)text, strlen(text), "rb");
    assert_int_equal(csv_sniff_file(f), ';');
    assert_int_equal(ftell(f), 0);
    fclose(f);
}

static void test_csv_formula_cells(void **state)
{
    static const char *const formulas[] = {
        "=1+2", "=HYPERLINK(\"http://x\")", "@SUM(A1)", "+cmd|' /C calc'!A0", "-2+3",
        "-A1", "+", "-", "\t=1", "\r=1", "@jdoe",
    };
    static const char *const plain[] = {
        "alice", "-3", "+1.5", "-0.25", "1e5", "-2E-3", "", "a=b", " =1", "Jos\xc3\xa9",
        "12345",
    };
    for (size_t i = 0; i < sizeof formulas / sizeof formulas[0]; i++)
        assert_true(csv_is_formula(formulas[i]));
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        assert_false(csv_is_formula(plain[i]));
}

/* Every field guarded with CSV_GUARD_ALL, past the mask's 64 bits too. */
static void test_csv_guard_all(void **state)
{
    (void)state;
    const char *row[70];
    for (size_t i = 0; i < 70; i++)
        row[i] = i % 2 ? "-3+4" : "-3";
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    csv_write_row(f, row, 70, CSV_GUARD_ALL);
    fclose(f);
    size_t guarded = 0, numbers = 0;
    for (char *p = strtok(buf, ",\r\n"); p; p = strtok(NULL, ",\r\n")) {
        guarded += !strcmp(p, "'-3+4");
        numbers += !strcmp(p, "-3");
    }
    assert_int_equal(guarded, 35);   /* field 69 too */
    assert_int_equal(numbers, 35);   /* a number is no formula */
    free(buf);
}

/* --- a column per exercise (Canvas, Moodle) ---------------------------- */

/* Two exercises: a-1 did both, b-2 the ex_first alone, c-3 the ex_second alone;
 * z-9 is no roster student. */
static const struct gradebook_entry ex_first[] = {
    { "a-1", true, true, 9, "Accepted: 9/9", NULL },
    { "b-2", true, true, 4.5, "Wrong Answer: 4.5/9", NULL },
};
static const struct gradebook_entry ex_second[] = {
    { "a-1", true, true, 12, "Accepted: 12/12", NULL },
    { "c-3", true, true, 3, "Wrong Answer: 3/12", "Cy" },
    { "z-9", true, true, 1, "Wrong Answer: 1/12", NULL },
};
static const struct gradebook_column ex_two[] = {
    { "The Butterfly", 9, ex_first, 2 },
    { "Bit reversal", 12, ex_second, 3 },
};

/* Writes the columns in layout canvas (roster r) or moodle into a string. */
static char *write_columns(bool canvas, const struct gradebook_column *cols, size_t n,
                           const struct gradebook_roster *r, struct gradebook_result *res)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    assert_non_null(f);
    bool ok = canvas ? gradebook_canvas_write_columns(f, cols, n, r, res)
                     : gradebook_moodle_write_columns(f, cols, n, res);
    assert_true(ok);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void three_students(struct gradebook_roster *r)
{
    memset(r, 0, sizeof *r);
    assert_true(gradebook_roster_add_student(r, "a-1", "Ann", true, "S1", ""));
    assert_true(gradebook_roster_add_student(r, "b-2", "Bo", true, "S1", ""));
    assert_true(gradebook_roster_add_student(r, "c-3", "Cy", false, "S2", ""));
}

static void test_canvas_a_column_per_exercise(void **state)
{
    (void)state;
    struct gradebook_roster r;
    three_students(&r);
    struct gradebook_result res;
    char *got = write_columns(true, ex_two, 2, &r, &res);
    assert_string_equal(got,
        "Student,ID,SIS User ID,SIS Login ID,Section,The Butterfly,Bit reversal\r\n"
        "\"    Points Possible\",,,,,9,12\r\n"
        "Ann,a-1,,,S1,9,12\r\n"
        "Bo,b-2,,,S1,4.5,\r\n"
        "Cy (unverified name),c-3,,,S2,,3\r\n");
    assert_int_equal(res.rows, 3);
    assert_int_equal(res.with_points, 3);
    assert_string_equal(res.matched_on, "ID");
    assert_int_equal(res.not_in_roster, 1);   /* z-9, once */
    assert_string_equal(res.not_in_roster_list, "z-9");
    free(got);
    /* one column is the one-exercise file, byte for byte */
    got = write_columns(true, ex_two, 1, &r, &res);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    struct gradebook_result one;
    assert_true(gradebook_canvas_write(f, ex_first, 2, &r, "The Butterfly", 9, &one));
    fclose(f);
    assert_string_equal(got, buf);
    assert_int_equal(res.with_points, one.with_points);
    assert_int_equal(res.not_in_roster, one.not_in_roster);
    free(buf);
    free(got);
    gradebook_roster_free(&r);
}

static void test_moodle_a_column_per_exercise(void **state)
{
    (void)state;
    struct gradebook_result res;
    char *got = write_columns(false, ex_two, 2, NULL, &res);
    assert_string_equal(got,
        "Identifier,The Butterfly,The Butterfly (Feedback),Bit reversal,"
        "Bit reversal (Feedback)\r\n"
        "a-1,9,Accepted: 9/9,12,Accepted: 12/12\r\n"
        "b-2,4.5,Wrong Answer: 4.5/9,,\r\n"
        "c-3,,,3,Cy (unverified name). Wrong Answer: 3/12\r\n"
        "z-9,,,1,Wrong Answer: 1/12\r\n");
    assert_int_equal(res.rows, 4);
    assert_int_equal(res.left_out, 0);
    free(got);
    /* an Internal Error and an id a spreadsheet would run: no cell, and
     * no row for a student left with none */
    const struct gradebook_entry bad[] = {
        { "=1+1", true, true, 3, "Wrong Answer", NULL },
        { "a-1", true, false, 0, "Internal Error", NULL },
    };
    const struct gradebook_entry more[] = {
        { "=1+1", true, true, 5, "Wrong Answer", NULL },
        { "b-2", true, true, 2, "Wrong Answer: 2/12", NULL },
    };
    const struct gradebook_column cols[] = { { "=One", 9, bad, 2 }, { "Two", 12, more, 2 } };
    got = write_columns(false, cols, 2, NULL, &res);
    assert_string_equal(got, "Identifier,'=One,'=One (Feedback),Two,Two (Feedback)\r\n"
                             "b-2,,,2,Wrong Answer: 2/12\r\n");
    assert_int_equal(res.rows, 1);
    assert_int_equal(res.left_out, 3);
    assert_int_equal(res.formula_ids, 1);   /* once, though in both columns */
    assert_string_equal(res.formula_list, "=1+1");
    free(got);
}

/* --- rosters ---------------------------------------------------------- */

static void test_roster_cell_problems(void **state)
{
    (void)state;
    char id_max[ROSTER_ID_MAX + 2], name_max[ROSTER_NAME_MAX + 2];
    memset(id_max, 'x', sizeof id_max);
    memset(name_max, 'n', sizeof name_max);
    static const struct {
        enum gradebook_roster_column c;
        const char *s;
        const char *why;   /* a word of the reason, NULL when fine */
    } cases[] = {
        { ROSTER_ID, "s1", NULL },
        { ROSTER_ID, "-5", NULL },
        { ROSTER_ID, "", NULL },
        { ROSTER_SIS_LOGIN, "jos\xc3\xa9", NULL },
        { ROSTER_STUDENT, "P\xc3\xa9rez, Jos\xc3\xa9", NULL },
        { ROSTER_STUDENT, "=EVIL()", NULL },          /* a name is guarded, not refused */
        { ROSTER_ID, "=HYPERLINK(\"x\")", "formula" },
        { ROSTER_SIS_USER, "-3+4", "formula" },
        { ROSTER_SIS_LOGIN, "@jdoe", "formula" },
        { ROSTER_ID, "+cmd", "formula" },
        { ROSTER_STUDENT, "Ren\xe9" "e", "UTF-8" },   /* Latin-1 */
        { ROSTER_ID, "a\xc0\xaf" "b", "UTF-8" },     /* overlong */
        { ROSTER_STUDENT, "a\x1b[2Jb", "control" },
        { ROSTER_STUDENT, "a\tb", "control" },
        { ROSTER_SECTION, "A\r", "control" },
        { ROSTER_COLUMNS, "a\xc2\x9b" "b", "control" },  /* C1 in the email */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = gradebook_roster_cell_problem(cases[i].c, cases[i].s,
                                                        strlen(cases[i].s));
        if (!cases[i].why)
            assert_null(why);
        else
            assert_non_null(strstr(why ? why : "", cases[i].why));
    }
    /* the bounds, from defaults.h */
    assert_null(gradebook_roster_cell_problem(ROSTER_ID, id_max, ROSTER_ID_MAX));
    assert_non_null(gradebook_roster_cell_problem(ROSTER_ID, id_max, ROSTER_ID_MAX + 1));
    assert_null(gradebook_roster_cell_problem(ROSTER_STUDENT, name_max, ROSTER_NAME_MAX));
    assert_non_null(gradebook_roster_cell_problem(ROSTER_STUDENT, name_max,
                                                  ROSTER_NAME_MAX + 1));
}

static void test_roster_duplicate(void **state)
{
    (void)state;
    struct gradebook_roster r = { 0 };
    static const char *const ids[] = { "b", "a", "", "c", "", "a", "b", "a" };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        assert_true(gradebook_roster_add_student(&r, ids[i], "N", true, "", ""));
    size_t first = 99, second = 99;
    bool oom = true;
    /* "a" at 1 and 5 comes before "b" at 0 and 6: the earliest second */
    assert_true(gradebook_roster_duplicate(&r, ROSTER_ID, &first, &second, &oom));
    assert_false(oom);
    assert_int_equal(first, 1);
    assert_int_equal(second, 5);
    /* empty cells are no ids: never duplicates */
    assert_false(gradebook_roster_duplicate(&r, ROSTER_SIS_USER, &first, &second, &oom));
    gradebook_roster_free(&r);
    struct gradebook_roster once = { 0 };
    assert_true(gradebook_roster_add_student(&once, "x", "N", true, "", ""));
    assert_true(gradebook_roster_add_student(&once, "y", "N", true, "", ""));
    assert_false(gradebook_roster_duplicate(&once, ROSTER_ID, &first, &second, &oom));
    assert_false(oom);
    gradebook_roster_free(&once);
}

/* A roster file, refused whole with its line, or read. */
static void test_roster_load(void **state)
{
    (void)state;
    static const struct {
        const char *data;
        size_t len;
        const char *words;   /* in the reason; NULL: read */
    } cases[] = {
        { "\xef\xbb\xbfid,name\ns1,Ada\n-5,Minus\n", 0, NULL },
        { "id,name\ns1,Ada\ns2,Ren\xe9\n", 0, ":3: not UTF-8" },
        { "\xff\xfei\0d\0\n\0", 8, "UTF-16" },
        { "id,name\ns1,A\ns2,B\ns1,C\n", 0, ":4: the ID \"s1\" is on line 2 too" },
        { "id,name\ns1,\"A\x1b[31m\"\n", 0, ":2: the Student \"A%1B[31m\" holds a control" },
        { "Student,SIS Login ID\nA,ok\nB,\"=1+1\"\n", 0, ":3: the SIS Login ID \"=1+1\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[] = "/tmp/test_roster_XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].data);
        assert_int_equal(write(fd, cases[i].data, len), (ssize_t)len);
        close(fd);
        struct gradebook_roster r;
        char err[512] = "";
        bool ok = batch_roster_load(path, &r, err, sizeof err);
        unlink(path);
        if (!cases[i].words) {
            assert_true(ok);
            assert_int_equal(r.n, 2);
            assert_string_equal(r.v[0].cell[ROSTER_ID], "s1");   /* the mark read past */
            assert_int_equal(r.v[1].line, 3);
            gradebook_roster_free(&r);
        } else {
            assert_false(ok);
            assert_int_equal(r.n, 0);                             /* nothing half-read */
            if (!strstr(err, cases[i].words))
                fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].words);
        }
    }
}

/* --- ids -------------------------------------------------------------- */

static void test_id_problems(void **state)
{
    assert_null(batch_id_problem("alice", 5));
    assert_null(batch_id_problem("Jos\xc3\xa9 P\xc3\xa9rez, \"the 2nd\"", 23));
    assert_null(batch_id_problem("../../etc/passwd", 16));   /* usable: its key is safe */
    assert_non_null(batch_id_problem("", 0));
    assert_non_null(batch_id_problem(".", 1));
    assert_non_null(batch_id_problem("..", 2));
    assert_non_null(batch_id_problem("a\nb", 3));
    assert_non_null(batch_id_problem("a\x1b[31m", 7));
    assert_non_null(batch_id_problem("a\0b", 3));
    assert_non_null(batch_id_problem("\xff\xfe", 2));
    assert_non_null(batch_id_problem("\xc0\xaf", 2));          /* overlong '/' */
    char long_id[BATCH_ID_MAX + 2];
    memset(long_id, 'a', sizeof long_id);
    assert_null(batch_id_problem(long_id, BATCH_ID_MAX));
    assert_non_null(batch_id_problem(long_id, BATCH_ID_MAX + 1));
}

static void test_id_keys_are_safe_and_distinct(void **state)
{
    static const char *const ids[] = {
        "alice", "Alice", "ALICE", "a.b", ".hidden", "../../etc/passwd", "a/b", "a%2Fb",
        "a%2fb", "%41lice", "s-1_2", "Jos\xc3\xa9", "CON", "con", "x,\"y\"", "..a", "a..",
    };
    size_t n = sizeof ids / sizeof ids[0];
    char keys[sizeof ids / sizeof ids[0]][BATCH_KEY_MAX];
    for (size_t i = 0; i < n; i++) {
        assert_null(batch_id_problem(ids[i], strlen(ids[i])));
        batch_id_key(ids[i], strlen(ids[i]), keys[i]);
        assert_null(strchr(keys[i], '/'));
        assert_true(keys[i][0] != '.');
        assert_true(strlen(keys[i]) <= 255);
        for (const char *c = keys[i]; *c; c++)
            assert_non_null(strchr("abcdefghijklmnopqrstuvwxyz0123456789._-%ABCDEF", *c));
    }
    /* one to one, even where case does not count */
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_true(strcasecmp(keys[i], keys[j]) != 0);
    assert_string_equal(keys[0], "alice");
    assert_string_equal(keys[1], "%41lice");
    assert_string_equal(keys[5], "%2E.%2F..%2Fetc%2Fpasswd");
    char worst[BATCH_ID_MAX + 1], key[BATCH_KEY_MAX];
    memset(worst, '/', BATCH_ID_MAX);
    batch_id_key(worst, BATCH_ID_MAX, key);
    assert_int_equal(strlen(key), 3 * BATCH_ID_MAX);
}

static void test_display_escapes_controls(void **state)
{
    char *s = batch_display("ok \xc3\xa9\x1b[2J\xff\n", 11);
    assert_string_equal(s, "ok \xc3\xa9%1B[2J%FF%0A");
    free(s);
}

static void test_display_cut_keeps_utf8_whole(void **state)
{
    char s[16];
    strcpy(s, "ab\xc3\xa9\xe2\x82\xac");     /* "abé€": 2 + 2 + 3 bytes */
    batch_display_cut(s, 6);                   /* would split the euro sign */
    assert_string_equal(s, "ab\xc3\xa9");
    strcpy(s, "ab\xc3\xa9");
    batch_display_cut(s, 3);                   /* would split the e acute */
    assert_string_equal(s, "ab");
    strcpy(s, "abc");
    batch_display_cut(s, 10);
    assert_string_equal(s, "abc");
}

/* --- SHA-256 ----------------------------------------------------------- */

static void test_sha256_vectors(void **state)
{
    char hex[BATCH_SHA256_HEX];
    batch_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    batch_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";   /* 56 bytes */
    batch_sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    memset(million, 'a', 1000000);
    batch_sha256_hex(million, 1000000, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
}

/* --- scoring ------------------------------------------------------------ */

static struct verdict *ran(enum verdict_status st, const bool half_ok[TASK_NHALVES])
{
    struct verdict *v = verdict_new(st, NULL);
    v->halves_run = TASK_NHALVES;
    for (int k = 0; k < TASK_NHALVES; k++) {
        struct half_result *h = &v->halves[k];
        h->half = task_butterfly.halves[k];
        h->passed = half_ok[k];
        h->hidden_total = TASK_HIDDEN;
        h->hidden_passed = half_ok[k] ? TASK_HIDDEN : 3;
        for (int y = 0; y < TASK_PLANES; y++)
            for (int x = 0; x < TASK_N; x++)
                h->cells[y][x] = (struct cell_result){ 1.0, half_ok[k] || x ? 1.0f : 2.0f,
                                                       half_ok[k] || x };
    }
    return v;
}

static void test_score(void **state)
{
    struct score s;
    const bool all[3] = { true, true, true }, first[3] = { true, false, false };
    struct verdict *v = ran(VERDICT_ACCEPTED, all);
    score_verdict(v, &s);
    assert_int_equal(s.score, 9);
    assert_int_equal(s.max_score, 9);
    assert_int_equal(s.halves_passed, 3);
    assert_int_equal(s.hidden_passed, 24);
    verdict_free(v);

    v = ran(VERDICT_WRONG_ANSWER, first);
    score_verdict(v, &s);
    assert_int_equal(s.score, SCORE_VISIBLE_POINTS + SCORE_HIDDEN_POINTS);
    assert_int_equal(s.halves_passed, 1);
    assert_int_equal(s.hidden_passed, 8 + 3 + 3);
    assert_true(s.tests[0].passed && s.tests[1].passed);
    assert_false(s.tests[2].passed);
    assert_string_equal(s.tests[2].name, "half = 2, visible spectrum");
    assert_string_equal(s.tests[3].visibility, "after_published");
    assert_non_null(strstr(s.tests[2].output, "2 of 16 cells are wrong"));
    verdict_free(v);

    v = verdict_new(VERDICT_COMPILATION_ERROR, "line 3: boom");
    score_verdict(v, &s);
    assert_int_equal(s.score, 0);
    assert_int_equal(s.ntests, 6);   /* the butterfly: two tests per half */
    for (int i = 0; i < s.ntests; i++) {
        assert_false(s.tests[i].passed);
        assert_non_null(strstr(s.tests[i].output, "Compilation Error"));
    }
    verdict_free(v);
}

static void test_normalise(void **state)
{
    char out[160];
    batch_summary_normalise("'undefined_name' : undeclared identifier", out, sizeof out);
    assert_string_equal(out, "'_' : undeclared identifier");
    batch_summary_normalise("  'x'  :  wrong   operand types  no operation '+' exists 12 3.5",
                            out, sizeof out);
    assert_string_equal(out, "'_' : wrong operand types no operation '_' exists N N");
    batch_summary_normalise("unterminated 'quote \x1b[31m", out, sizeof out);
    assert_null(strchr(out, '\x1b'));
}

/* --- progress ----------------------------------------------------------- */

/* The width a terminal shows: escape sequences take none. */
static size_t visible_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) {
        if (*s == '\033') {
            while (*s && *s != 'm')
                s++;
            if (!*s)
                break;
            continue;
        }
        w++;
    }
    return w;
}

static void test_progress_line_fits_the_terminal(void **state)
{
    struct batch_progress p;
    batch_progress_init(&p, stderr, 100000, true);
    for (int i = 0; i < 12345; i++)
        batch_progress_count(&p, i % 3 ? VERDICT_ACCEPTED : VERDICT_WRONG_ANSWER, false);
    static const int widths[] = { 1, 8, 20, 33, 40, 60, 80, 120, 300 };
    char line[512];
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        for (int colour = 0; colour < 2; colour++) {
            size_t n = batch_progress_line(&p, widths[i], colour, line, sizeof line);
            assert_int_equal(n, strlen(line));
            assert_true(visible_width(line) <= (size_t)(widths[i] > 1 ? widths[i] - 1 : 0));
            assert_true(colour || !strchr(line, '\033'));
        }
    }
    /* wide: everything, the verdicts in colour when asked */
    batch_progress_line(&p, 120, true, line, sizeof line);
    assert_non_null(strstr(line, "12345/100000"));
    assert_non_null(strstr(line, "\033[32mAC 8230"));
    batch_progress_line(&p, 120, false, line, sizeof line);
    assert_non_null(strstr(line, "AC 8230 WA 4115"));
    /* narrow: the bar and the count stay, the verdicts go */
    batch_progress_line(&p, 50, false, line, sizeof line);
    assert_non_null(strstr(line, "12345/100000"));
    assert_null(strstr(line, "AC"));
    assert_int_equal(line[0], '[');
}

/* --until: a deadline as people write one, to the whole second. */
static void test_until_and_policy(void **state)
{
    static const struct { const char *s; int64_t ms; } good[] = {
        { "1970-01-01T00:00:05Z", 5999 },
        { "2026-12-01T23:59:00Z", 1796169540999LL },
        { "2026-12-01T23:59Z", 1796169540999LL },
        { "2026-12-02T00:59:00+01:00", 1796169540999LL },
        { "2026-12-01T18:59:00-05:00", 1796169540999LL },
        { "@5", 5999 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        int64_t ms = -1;
        assert_true(batch_until_parse(good[i].s, &ms));
        assert_int_equal(ms, good[i].ms);
    }
    static const char *const bad[] = {
        "2026-12-01T23:59:00",        /* no zone: whose 23:59? */
        "2026-12-01", "yesterday", "", "@", "@-1", "@5x", "2026-13-01T00:00Z",
        "2026-12-01T24:00Z", "2026-12-01T23:59:00+1", "2026-12-01T23:59:00Zjunk",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ms = 42;
        assert_false(batch_until_parse(bad[i], &ms));
    }
    enum store_policy p;
    assert_true(store_policy_from_str("best", &p));
    assert_int_equal(p, STORE_POLICY_BEST);
    assert_true(store_policy_from_str("last", &p));
    assert_string_equal(store_policy_to_str(p), "last");
    assert_false(store_policy_from_str("first", &p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_reads_rfc4180),
        cmocka_unit_test(test_csv_bounds_and_unclosed_quote),
        cmocka_unit_test(test_csv_writes_quotes_and_guards_formulas),
        cmocka_unit_test(test_csv_semicolons_and_byte_order_mark),
        cmocka_unit_test(test_csv_sniffs_the_delimiter),
        cmocka_unit_test(test_csv_formula_cells),
        cmocka_unit_test(test_csv_guard_all),
        cmocka_unit_test(test_canvas_a_column_per_exercise),
        cmocka_unit_test(test_moodle_a_column_per_exercise),
        cmocka_unit_test(test_roster_cell_problems),
        cmocka_unit_test(test_roster_duplicate),
        cmocka_unit_test(test_roster_load),
        cmocka_unit_test(test_id_problems),
        cmocka_unit_test(test_id_keys_are_safe_and_distinct),
        cmocka_unit_test(test_display_escapes_controls),
        cmocka_unit_test(test_display_cut_keeps_utf8_whole),
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_score),
        cmocka_unit_test(test_normalise),
        cmocka_unit_test(test_progress_line_fits_the_terminal),
        cmocka_unit_test(test_until_and_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
