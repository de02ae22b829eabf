/*
 * directive_scan.c - glslang's preprocessor lexing, as far as directives
 * need it (see directive_scan.h). Written from how glslang 12.0.0 behaves;
 * every branch below names the glslang behaviour it follows.
 */
#include "engine/checks/directive_scan.h"

#include <string.h>

#define END_OF_INPUT (-1)
/* glslang's MaxTokenLength: a longer string ends there, and what follows
 * is scanned as code. */
#define MAX_TOKEN_LENGTH 1024
/* How far back ungetch may go: the scanner never takes back more than one
 * character at a time, a few in a row at most. */
#define HISTORY 8

enum token { T_END, T_NEWLINE, T_HASH, T_NAME, T_OTHER };

struct scanner {
    const unsigned char *s;
    size_t len, pos;
    int line;
    /* positions before the last getch() calls, for ungetch() */
    size_t hist_pos[HISTORY];
    int hist_line[HISTORY];
    unsigned nhist, hist_next;
    char name[DIRECTIVE_NAME_MAX + 1];   /* of the last T_NAME */
};

/* The raw input, as glslang's TInputScanner::get and ::peek. */
static int peek(const struct scanner *sc)
{
    return sc->pos < sc->len ? sc->s[sc->pos] : END_OF_INPUT;
}

static int get(struct scanner *sc)
{
    int c = peek(sc);
    if (c == END_OF_INPUT)
        return c;
    sc->pos++;
    sc->line += c == '\n';
    return c;
}

/*
 * tStringInput::getch: escaped newlines vanish (as many as follow each
 * other), and every newline form comes out as '\n'.
 */
static int getch(struct scanner *sc)
{
    sc->hist_pos[sc->hist_next] = sc->pos;
    sc->hist_line[sc->hist_next] = sc->line;
    sc->hist_next = (sc->hist_next + 1) % HISTORY;
    if (sc->nhist < HISTORY)
        sc->nhist++;

    int c = get(sc);
    if (c == '\\') {
        do {
            if (peek(sc) != '\r' && peek(sc) != '\n')
                return '\\';
            c = get(sc);
            int next = get(sc);
            if (c == '\r' && next == '\n')
                c = get(sc);
            else
                c = next;
        } while (c == '\\');
    }
    if (c == '\r' || c == '\n') {
        if (c == '\r' && peek(sc) == '\n')
            get(sc);
        return '\n';
    }
    return c;
}

/* tStringInput::ungetch: the next getch() gives the last one's character
 * again. */
static void ungetch(struct scanner *sc)
{
    if (sc->nhist == 0)
        return;
    sc->hist_next = (sc->hist_next + HISTORY - 1) % HISTORY;
    sc->nhist--;
    sc->pos = sc->hist_pos[sc->hist_next];
    sc->line = sc->hist_line[sc->hist_next];
}

static bool is_hex(int c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * A string literal after its opening quote: it ends at the closing quote,
 * before a newline or the end, or after MAX_TOKEN_LENGTH characters. An
 * escape takes the character after the backslash whatever it is (even a
 * newline), and \x and \0.. take their digits.
 */
static void scan_string(struct scanner *sc)
{
    int len = 0;
    int c = getch(sc);
    while (c != '"' && c != '\n' && c != END_OF_INPUT) {
        if (len >= MAX_TOKEN_LENGTH)
            break;
        if (c == '\\') {
            int next = getch(sc);
            if (next == 'x') {
                while (is_hex(next = getch(sc)))
                    ;
                ungetch(sc);
            } else if (next >= '0' && next <= '7') {
                for (int digits = 1; digits < 3; digits++) {
                    next = getch(sc);
                    if (next < '0' || next > '7') {
                        ungetch(sc);
                        break;
                    }
                }
            }
        }
        len++;
        c = getch(sc);
    }
    if (c != '"')
        ungetch(sc);
}

static bool is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * The next token, as tStringInput::scan tells them apart: only what
 * matters for directives is told apart; every other token (operators,
 * numbers, an apostrophe, any other byte) is T_OTHER, and a token of
 * several ordinary characters may come out as several T_OTHERs, which
 * changes nothing here since none of them holds a newline, a '#', a
 * quote or a slash.
 */
static enum token scan(struct scanner *sc)
{
    int c = getch(sc);
    for (;;) {
        while (c == ' ' || c == '\t')
            c = getch(sc);
        if (c == END_OF_INPUT)
            return T_END;
        if (c == '\n')
            return T_NEWLINE;
        if (c == '#')
            return T_HASH;
        if (c == '"') {
            scan_string(sc);
            return T_OTHER;
        }
        if (is_name_start(c)) {
            size_t n = 0;
            while (is_name_char(c)) {
                if (n < DIRECTIVE_NAME_MAX)
                    sc->name[n++] = (char)c;
                c = getch(sc);
            }
            sc->name[n] = '\0';
            ungetch(sc);
            return T_NAME;
        }
        if (c != '/')
            return T_OTHER;
        c = getch(sc);
        if (c == '/') {
            /* a line comment: its newline is the token */
            do
                c = getch(sc);
            while (c != '\n' && c != END_OF_INPUT);
            return c == '\n' ? T_NEWLINE : T_END;
        }
        if (c != '*') {
            if (c != '=')
                ungetch(sc);
            return T_OTHER;
        }
        /* a block comment makes no token, not even for its newlines */
        c = getch(sc);
        do {
            while (c != '*') {
                if (c == END_OF_INPUT)
                    return T_END;
                c = getch(sc);
            }
            c = getch(sc);
            if (c == END_OF_INPUT)
                return T_END;
        } while (c != '/');
        c = getch(sc);
    }
}

void directive_scan(const char *s, size_t len,
                    bool (*found)(const char *name, int line, void *arg), void *arg)
{
    struct scanner sc = { .s = (const unsigned char *)s, .len = len, .line = 1 };
    bool line_start = true;   /* the harness puts a newline before the body */
    for (;;) {
        enum token t = scan(&sc);
        if (t == T_END)
            return;
        if (t == T_HASH && line_start) {
            int line = sc.line;
            t = scan(&sc);
            if (!found(t == T_NAME ? sc.name : "", line, arg))
                return;
            /* the directive's own tokens run to its newline; the next line
             * starts afresh (glslang keeps the newline before the '#') */
            while (t != T_NEWLINE && t != T_END)
                t = scan(&sc);
            if (t == T_END)
                return;
            continue;
        }
        line_start = t == T_NEWLINE;
    }
}
