/*
 * client_id.h - who a submission is for, as the fair share and the token
 * guard key it: an address in binary, IPv6 cut to the network that names
 * one client. The server fills it from the peer's sockaddr or a trusted
 * proxy's header (server/client_addr.h); it becomes text only where it is
 * written out (the access log). Pure: no sockets.
 */
#ifndef BUTTERFLY_CLIENT_ID_H
#define BUTTERFLY_CLIENT_ID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum client_family {
    CLIENT_LOCAL = 0,   /* no address: a local caller (the batch, a test) or none known */
    CLIENT_IPV4,
    CLIENT_IPV6,
};

/* Canonical: every byte past the prefix is zero, so two ids of one client
 * are equal byte for byte (client_id_equal, client_id_hash). */
struct client_id {
    uint8_t family;       /* enum client_family */
    uint8_t prefix;       /* leading bits of addr that name the client: 32 for IPv4,
                             1..128 for IPv6; 0 for CLIENT_LOCAL */
    uint8_t addr[16];     /* network byte order; IPv4 in the first 4 */
};

/* Long enough for any id in text: an IPv6 address with "/128". */
#define CLIENT_ID_TEXT_MAX 64

/* The local client (all zero): what a zero-initialised id already is. */
void client_id_local(struct client_id *id);

/*
 * Sets *id to family's address `bytes` (4 or 16 of them) cut to its first
 * `prefix` bits (IPv4 is always whole; an IPv6 prefix of 0 or over 128 is
 * 128), the rest zeroed.
 */
void client_id_set(struct client_id *id, enum client_family family, const uint8_t *bytes,
                   unsigned prefix);

/* Whether a and b are the same client. */
bool client_id_equal(const struct client_id *a, const struct client_id *b);

/* hash_fnv1a64 of the id, for tables. */
uint64_t client_id_hash(const struct client_id *id);

/*
 * The id in text into out (outsz > 0, always NUL-terminated): IPv4 as
 * dotted quads, IPv6 in RFC 5952's form and, when cut, "/PREFIX" after
 * it ("2001:db8:1:2::/64"), a local client as "-". Returns out.
 */
char *client_id_format(const struct client_id *id, char *out, size_t outsz);

#endif
