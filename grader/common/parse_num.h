/* parse_num.h - strict parsing of numbers from options and variables. */
#ifndef BUTTERFLY_PARSE_NUM_H
#define BUTTERFLY_PARSE_NUM_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Parses s as a decimal unsigned integer no larger than max: digits only,
 * no sign, nothing after. On success sets *out and returns true; on
 * failure returns false and leaves *out alone.
 */
bool parse_u64(const char *s, uint64_t max, uint64_t *out);

#endif
