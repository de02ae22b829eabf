/* hash.h - a fast non-cryptographic hash for tables and cache keys. */
#ifndef BUTTERFLY_HASH_H
#define BUTTERFLY_HASH_H

#include <stddef.h>
#include <stdint.h>

/*
 * 64-bit FNV-1a of len bytes. For telling inputs apart in hash tables,
 * caches and affinity: never for anything an adversary must not collide
 * (whoever relies on it for identity compares the bytes too).
 */
uint64_t hash_fnv1a64(const void *data, size_t len);

#endif
