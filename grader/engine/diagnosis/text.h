/* text.h - a string that grows as the diagnosis writes it. */
#ifndef BUTTERFLY_TEXT_H
#define BUTTERFLY_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* A string that grows as it is written; after a failed allocation it
 * stays as it was and `failed` says so. */
struct text {
    char *buf;
    size_t len, cap;
    bool failed;
};

/* Appends printf-formatted text to s; zero-initialise s to start. */
void text_add(struct text *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * The text, handed to the caller to free (an empty string when nothing was
 * added); NULL when an allocation failed, the text then freed.
 */
char *text_take(struct text *s);

/* Appends the twiddle e^(iπk/8) as the page names it (1, −i, e^(−iπ/4)). */
void text_add_twiddle(struct text *s, int k);

#endif
