/*
 * batch_seed.h - the seed of a batch run: the hidden spectra are drawn
 * from it, so no student may be able to predict it, and an instructor
 * must be able to reproduce a grade with it.
 *
 * One seed per run: given with --seed, else the one an earlier run kept
 * in the output folder (so that a resumed or repeated run grades every
 * student on the same spectra), else drawn from the operating system's
 * random source (getrandom(2)). --force draws a new one unless --seed is
 * given. The seed is kept in OUT/.state.json before any grading starts.
 */
#ifndef BUTTERFLY_BATCH_SEED_H
#define BUTTERFLY_BATCH_SEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch/batch_output.h"

#define BATCH_STATE_FILE   ".state.json"
#define BATCH_STATE_SCHEMA 1
#define BATCH_STATE_MAX    4096   /* bytes of the state file read back */

/* Where a run's seed came from. */
enum batch_seed_origin {
    BATCH_SEED_GIVEN,      /* --seed */
    BATCH_SEED_KEPT,       /* the output folder's earlier run */
    BATCH_SEED_DRAWN,      /* getrandom(2) */
};

/* A phrase for the summary ("given with --seed", ...); never NULL. */
const char *batch_seed_origin_to_str(enum batch_seed_origin o);

/*
 * Draws a seed of 53 bits (exact in a JSON number, see MAX_SEED) from
 * getrandom(2) without blocking. False with a reason in err when the
 * operating system's random source is not ready or not there.
 */
bool batch_seed_draw(uint64_t *seed, char *err, size_t errsz);

/* The seed an earlier run kept in the output folder; false when none can
 * be read (no file, damaged, another schema). */
bool batch_seed_load(const struct batch_output *out, uint64_t *seed);

/* Keeps seed in the output folder, atomically. False with a reason in err. */
bool batch_seed_store(struct batch_output *out, uint64_t seed, char *err, size_t errsz);

/*
 * The seed of this run, by the rules above: `given` (when has_given),
 * else the kept one (unless force), else a drawn one; then stores it.
 * Sets *origin. False with a reason in err (no random source, the state
 * cannot be written).
 */
bool batch_seed_choose(struct batch_output *out, bool has_given, uint64_t given, bool force,
                       uint64_t *seed, enum batch_seed_origin *origin, char *err, size_t errsz);

#endif
