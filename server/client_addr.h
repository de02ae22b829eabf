/*
 * client_addr.h - who a request comes from, for the fair share.
 *
 * A client is its connecting address. Behind a reverse proxy every
 * connection comes from the proxy, so for a peer the operator declared
 * trusted (--trusted-proxy) the client is taken from the X-Forwarded-For
 * or Forwarded header: the nearest address in it that is not itself a
 * trusted proxy. From anyone else those headers are ignored, since a
 * student can write any header and would otherwise pick a fresh identity
 * for every request. Pure functions: no sockets.
 */
#ifndef BUTTERFLY_CLIENT_ADDR_H
#define BUTTERFLY_CLIENT_ADDR_H

#include <stdbool.h>
#include <stddef.h>

#define CLIENT_ADDR_MAX_PROXIES 16
/* Long enough for any IPv6 address in text. */
#define CLIENT_ADDR_LEN 64

struct trusted_net {
    int family;                /* AF_INET or AF_INET6 */
    unsigned char addr[16];
    unsigned prefix;           /* bits that must match */
};

struct trusted_proxies {
    struct trusted_net nets[CLIENT_ADDR_MAX_PROXIES];
    size_t n;
};

/*
 * Adds "ADDR" or "ADDR/PREFIX" (IPv4 or IPv6) to the trusted proxies. An
 * IPv4-mapped IPv6 address is its IPv4 address (::ffff:10.0.0.0/104 is
 * 10.0.0.0/8), as are the hops of the headers and a dual-stack peer.
 * False with a reason in err when it does not parse or the list is full.
 */
bool trusted_proxies_add(struct trusted_proxies *t, const char *spec, char *err, size_t errsz);

/* Whether the address in text `addr` is a trusted proxy. */
bool trusted_proxies_contain(const struct trusted_proxies *t, const char *addr);

/*
 * The client of a request whose peer address is `peer` (text), given its
 * X-Forwarded-For and Forwarded headers (either may be NULL). Writes the
 * client's address, in canonical text, into out. The headers count only
 * when the peer is trusted; X-Forwarded-For is read first, from its right
 * end (the entries a proxy appended), skipping trusted proxies; an entry
 * that is not an address stops the walk at the last trusted hop.
 */
void client_addr_resolve(const char *peer, const char *x_forwarded_for, const char *forwarded,
                         const struct trusted_proxies *t, char *out, size_t outsz);

#endif
