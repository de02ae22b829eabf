/* words.h - how the tests count a diagnosis's words (issue 32: one story,
 * short), the same way in every suite. */
#ifndef BUTTERFLY_TEST_WORDS_H
#define BUTTERFLY_TEST_WORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Words in s[0..n): runs of characters other than blanks. */
static inline size_t test_words(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        count += s[k] != ' ' && (k == 0 || s[k - 1] == ' ');
    return count;
}

/* The length of s's first sentence: up to a '.' that ends s or is followed
 * by a blank and a capital. */
static inline size_t test_first_sentence(const char *s)
{
    for (size_t k = 0; s[k]; k++)
        if (s[k] == '.' && (s[k + 1] == '\0' ||
                            (s[k + 1] == ' ' && s[k + 2] >= 'A' && s[k + 2] <= 'Z')))
            return k + 1;
    return strlen(s);
}

/* Whether a diagnosis keeps to its words: the title and the explanation's
 * first sentence in at most `lead`, "more" in at most `more`. */
static inline bool test_diagnosis_short(const char *title, const char *explanation,
                                        const char *more_text, size_t lead, size_t more)
{
    size_t first = test_words(title, strlen(title)) +
                   test_words(explanation, test_first_sentence(explanation));
    return first <= lead && (!more_text || test_words(more_text, strlen(more_text)) <= more);
}

#endif
