/* batch_seed.c - a run's seed: given, kept from the run before, or drawn. */
#include "batch/batch_seed.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/defaults.h"
#include "common/seed.h"

const char *batch_seed_origin_to_str(enum batch_seed_origin o)
{
    switch (o) {
    case BATCH_SEED_GIVEN: return "given with --seed";
    case BATCH_SEED_KEPT: return "kept from the earlier run in this output folder";
    case BATCH_SEED_DRAWN: return "drawn from the operating system's random source";
    }
    return "unknown";
}

bool batch_seed_draw(uint64_t *seed, char *err, size_t errsz)
{
    if (seed_fresh(seed))
        return true;
    snprintf(err, errsz, "cannot draw a seed from the operating system (%s); pass one with "
             "--seed", strerror(errno));
    return false;
}

bool batch_seed_load(const struct batch_output *out, uint64_t *seed)
{
    size_t len;
    char *text = batch_output_read(out, BATCH_STATE_FILE, BATCH_STATE_MAX, &len);
    if (!text)
        return false;
    json_t *j = json_loadb(text, len, 0, NULL);
    free(text);
    json_t *s = json_object_get(j, "seed");
    bool ok = json_integer_value(json_object_get(j, "schema")) == BATCH_STATE_SCHEMA &&
              json_is_integer(s) && json_integer_value(s) >= 0 &&
              (uint64_t)json_integer_value(s) <= MAX_SEED;
    if (ok)
        *seed = (uint64_t)json_integer_value(s);
    json_decref(j);
    return ok;
}

bool batch_seed_store(struct batch_output *out, uint64_t seed, char *err, size_t errsz)
{
    char text[128];
    int n = snprintf(text, sizeof text, "{\"schema\": %d, \"seed\": %llu}\n", BATCH_STATE_SCHEMA,
                     (unsigned long long)seed);
    return batch_output_write(out, BATCH_STATE_FILE, text, (size_t)n, err, errsz);
}

bool batch_seed_choose(struct batch_output *out, bool has_given, uint64_t given, bool force,
                       uint64_t *seed, enum batch_seed_origin *origin, char *err, size_t errsz)
{
    if (has_given) {
        *seed = given;
        *origin = BATCH_SEED_GIVEN;
    } else if (!force && batch_seed_load(out, seed)) {
        *origin = BATCH_SEED_KEPT;
    } else if (batch_seed_draw(seed, err, errsz)) {
        *origin = BATCH_SEED_DRAWN;
    } else {
        return false;
    }
    return batch_seed_store(out, *seed, err, errsz);
}
