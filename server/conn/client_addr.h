/*
 * client_addr.h - who a request comes from, for the fair share.
 *
 * A client is its connecting address. Behind a reverse proxy every
 * connection comes from the proxy, so for a peer the operator declared
 * trusted (--trusted-proxy) the client is taken from the one header the
 * proxies write (--proxy-header: X-Forwarded-For or Forwarded, never
 * both): every line of it joined in order, read from the right, the first
 * hop that is not itself a trusted proxy. A proxy appends on the right
 * (HAProxy's `option forwardfor` as a line of its own), so whatever the
 * client wrote is on the left and is never reached while a trusted hop
 * names someone else. From anyone else the headers are ignored, since a
 * student can write any header and would otherwise pick a fresh identity
 * for every request. An IPv6 client is its prefix (--ipv6-client-prefix,
 * /64 by default: one home or one host), since one host holds a whole
 * /64 and could be a new client with every address. The client stays
 * binary (common/client_id.h) from the peer's sockaddr to the pool's
 * queues and the token guard; only the access log prints it. Pure
 * functions: no sockets.
 */
#ifndef BUTTERFLY_CLIENT_ADDR_H
#define BUTTERFLY_CLIENT_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "common/client_id.h"

#define CLIENT_ADDR_MAX_PROXIES 16
/* Long enough for any IPv6 address in text, with a "/128". */
#define CLIENT_ADDR_LEN CLIENT_ID_TEXT_MAX
/* Bytes of a forwarding header read, all its lines joined: past it only
 * the right end is kept, the hops the proxies appended. */
#define CLIENT_ADDR_MAX_FORWARDING 8192

struct trusted_net {
    enum client_family family;   /* CLIENT_IPV4 or CLIENT_IPV6 */
    unsigned char addr[16];
    unsigned prefix;             /* bits that must match */
};

struct trusted_proxies {
    struct trusted_net nets[CLIENT_ADDR_MAX_PROXIES];
    size_t n;
};

/* The header trusted proxies write the client into. */
enum client_header {
    CLIENT_HEADER_X_FORWARDED_FOR,   /* the default: what deploy/nginx.conf sends */
    CLIENT_HEADER_FORWARDED,         /* RFC 7239 */
};

/* How the client of a request is found. */
struct client_rules {
    struct trusted_proxies proxies;
    enum client_header header;
    unsigned ipv6_prefix;            /* bits of an IPv6 address that name a client, 1..128 */
};

/* The defaults: no trusted proxy, X-Forwarded-For, DEFAULT_IPV6_CLIENT_PREFIX. */
void client_addr_rules_init(struct client_rules *r);

/* The header's name as HTTP writes it ("X-Forwarded-For", "Forwarded"). */
const char *client_addr_header_to_str(enum client_header h);

/* Parses a header name (either, case-insensitive) into *h; false if neither. */
bool client_addr_header_parse(const char *name, enum client_header *h);

/*
 * Adds "ADDR" or "ADDR/PREFIX" (IPv4 or IPv6) to the trusted proxies. An
 * IPv4-mapped IPv6 address is its IPv4 address (::ffff:10.0.0.0/104 is
 * 10.0.0.0/8), as are the hops of the headers and a dual-stack peer.
 * False with a reason in err when it does not parse or the list is full.
 */
bool client_addr_proxies_add(struct trusted_proxies *t, const char *spec, char *err, size_t errsz);

/*
 * The peer of a connection as a whole address (prefix 32 or 128): an
 * IPv4 peer of a dual-stack socket ("::ffff:192.0.2.1") as plain IPv4, so
 * one client has one key. False (and *out local) for NULL or a family
 * other than IPv4 and IPv6.
 */
bool client_addr_from_sockaddr(const struct sockaddr *sa, struct client_id *out);

/* An address in text ("192.0.2.1", "2001:db8::1", "::ffff:192.0.2.1" as
 * IPv4) as a whole address into *out; false (and *out local) when it is not one. */
bool client_addr_parse(const char *text, struct client_id *out);

/* Whether the address `addr` (a whole one) is a trusted proxy. */
bool client_addr_proxies_contain(const struct trusted_proxies *t, const struct client_id *addr);

/*
 * The client of a request whose peer address is `peer` (a whole address,
 * or local when unknown), given the value of the rules' header, every line
 * of it joined in order by ", " (NULL when there is none). Writes the
 * client into out: IPv4 as it is, IPv6 as the network of ipv6_prefix bits.
 * The header counts only when the peer is trusted; it is read from its
 * right end (the entries a proxy appended), skipping trusted proxies; an
 * entry that is not an address stops the walk at the last trusted hop.
 */
void client_addr_resolve(const struct client_id *peer, const char *forwarding,
                         const struct client_rules *r, struct client_id *out);

/*
 * Appends one line of a forwarding header to the joined value in buf
 * (bufsz bytes, NUL-terminated, "" to start): ", " between lines. When
 * the whole would not fit, the left end is dropped up to an entry
 * boundary, since the hops that matter are on the right.
 */
void client_addr_join(char *buf, size_t bufsz, const char *line);

#endif
