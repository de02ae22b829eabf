/* seed.h - seeds of the hidden spectra that nobody can know in advance. */
#ifndef BUTTERFLY_SEED_H
#define BUTTERFLY_SEED_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A fresh seed from the operating system's random source (getrandom),
 * from 0 to MAX_SEED (exact in a JSON number). A student who knows every
 * earlier seed, and the generator, still cannot predict the next one.
 * False, with errno set, when the kernel gives no random bytes (EAGAIN
 * early in a boot, before its pool is seeded); *out is then left alone,
 * and a grader must refuse to grade rather than use a guessable seed.
 */
bool seed_fresh(uint64_t *out);

#endif
