/* client_addr.c - the client behind a trusted proxy. */
#include "server/conn/client_addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"

void client_addr_rules_init(struct client_rules *r)
{
    memset(r, 0, sizeof *r);
    if (!client_addr_header_parse(DEFAULT_PROXY_HEADER, &r->header))
        r->header = CLIENT_HEADER_X_FORWARDED_FOR;
    r->ipv6_prefix = DEFAULT_IPV6_CLIENT_PREFIX;
}

const char *client_addr_header_to_str(enum client_header h)
{
    return h == CLIENT_HEADER_FORWARDED ? "Forwarded" : "X-Forwarded-For";
}

bool client_addr_header_parse(const char *name, enum client_header *h)
{
    if (!strcasecmp(name, "X-Forwarded-For"))
        *h = CLIENT_HEADER_X_FORWARDED_FOR;
    else if (!strcasecmp(name, "Forwarded"))
        *h = CLIENT_HEADER_FORWARDED;
    else
        return false;
    return true;
}

/*
 * Parses an address in text into a whole address. An IPv4-mapped IPv6
 * address ("::ffff:192.0.2.1") becomes plain IPv4, as a dual-stack peer
 * does (client_addr_from_sockaddr): a hop or a proxy written either way
 * is the same address. *mapped (may be NULL) says that happened.
 */
static bool parse_addr(const char *text, struct client_id *out, bool *mapped)
{
    unsigned char v4[4];
    struct in6_addr a;
    if (mapped)
        *mapped = false;
    client_id_local(out);
    if (inet_pton(AF_INET, text, v4) == 1) {
        client_id_set(out, CLIENT_IPV4, v4, 32);
        return true;
    }
    if (inet_pton(AF_INET6, text, &a) != 1)
        return false;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        client_id_set(out, CLIENT_IPV4, a.s6_addr + 12, 32);
        if (mapped)
            *mapped = true;
    } else {
        client_id_set(out, CLIENT_IPV6, a.s6_addr, 128);
    }
    return true;
}

bool client_addr_parse(const char *text, struct client_id *out)
{
    return parse_addr(text, out, NULL);
}

bool client_addr_from_sockaddr(const struct sockaddr *sa, struct client_id *out)
{
    client_id_local(out);
    if (!sa)
        return false;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        client_id_set(out, CLIENT_IPV4, (const uint8_t *)&in->sin_addr, 32);
        return true;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a))
            client_id_set(out, CLIENT_IPV4, a->s6_addr + 12, 32);
        else
            client_id_set(out, CLIENT_IPV6, a->s6_addr, 128);
        return true;
    }
    return false;
}

bool client_addr_proxies_add(struct trusted_proxies *t, const char *spec, char *err, size_t errsz)
{
    char text[CLIENT_ADDR_LEN];
    struct trusted_net net;
    if (t->n == CLIENT_ADDR_MAX_PROXIES) {
        snprintf(err, errsz, "at most %d trusted proxies", CLIENT_ADDR_MAX_PROXIES);
        return false;
    }
    const char *slash = strchr(spec, '/');
    size_t len = slash ? (size_t)(slash - spec) : strlen(spec);
    if (len == 0 || len >= sizeof text)
        goto bad;
    memcpy(text, spec, len);
    text[len] = '\0';
    bool mapped;
    struct client_id whole;
    if (!parse_addr(text, &whole, &mapped))
        goto bad;
    net.family = (enum client_family)whole.family;
    memcpy(net.addr, whole.addr, sizeof net.addr);
    /* a mapped network keeps its IPv6 prefix length: ::ffff:10.0.0.0/104
     * is 10.0.0.0/8 */
    unsigned skip = mapped ? 96 : 0;
    unsigned bits = net.family == CLIENT_IPV4 ? 32 : 128;
    net.prefix = bits;
    if (slash) {
        char *end;
        unsigned long p = strtoul(slash + 1, &end, 10);
        if (slash[1] < '0' || slash[1] > '9' || *end || p > bits + skip || p < skip)
            goto bad;
        net.prefix = (unsigned)(p - skip);
    }
    t->nets[t->n++] = net;
    return true;
bad:
    snprintf(err, errsz, "bad trusted proxy \"%.80s\" (give ADDR or ADDR/PREFIX)", spec);
    return false;
}

static bool in_net(const struct trusted_net *net, const struct client_id *a)
{
    const unsigned char *addr = a->addr;
    if (net->family != a->family)
        return false;
    unsigned full = net->prefix / 8, rest = net->prefix % 8;
    if (memcmp(net->addr, addr, full) != 0)
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (net->addr[full] & mask) == (addr[full] & mask);
}

bool client_addr_proxies_contain(const struct trusted_proxies *t, const struct client_id *addr)
{
    for (size_t i = 0; i < t->n; i++)
        if (in_net(&t->nets[i], addr))
            return true;
    return false;
}

/*
 * One hop of a forwarding header, as an address: trims blanks and quotes,
 * takes an IPv6 address out of its brackets, and drops an IPv4 port.
 * False for anything else ("unknown", an obfuscated name, garbage).
 */
static bool hop_address(const char *s, size_t n, struct client_id *addr)
{
    char text[CLIENT_ADDR_LEN];
    while (n > 0 && (*s == ' ' || *s == '\t' || *s == '"')) {
        s++;
        n--;
    }
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '"'))
        n--;
    if (n == 0 || n >= sizeof text)
        return false;
    if (s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close)
            return false;
        n = (size_t)(close - s - 1);
        s++;
    } else {
        /* "192.0.2.1:4711": one colon after a dotted address is a port (an
         * IPv6 address has several, "::ffff:192.0.2.1" included) */
        const char *colon = memchr(s, ':', n);
        if (colon && memchr(s, '.', n) && !memchr(colon + 1, ':', n - (size_t)(colon + 1 - s)))
            n = (size_t)(colon - s);
    }
    if (n == 0 || n >= sizeof text)
        return false;
    memcpy(text, s, n);
    text[n] = '\0';
    return parse_addr(text, addr, NULL);
}

/* The `for=` value of one Forwarded element, into *v and *vn. */
static bool forwarded_for(const char *s, size_t n, const char **v, size_t *vn)
{
    while (n > 0) {
        const char *semi = memchr(s, ';', n);
        size_t len = semi ? (size_t)(semi - s) : n;
        const char *p = s;
        size_t pn = len;
        while (pn > 0 && (*p == ' ' || *p == '\t')) {
            p++;
            pn--;
        }
        if (pn > 4 && !strncasecmp(p, "for=", 4)) {
            *v = p + 4;
            *vn = pn - 4;
            return true;
        }
        if (!semi)
            break;
        s = semi + 1;
        n -= len + 1;
    }
    return false;
}

/*
 * Walks a comma-separated header from its right end. Each entry is an
 * address (X-Forwarded-For) or a Forwarded element (its for= value).
 * Returns true with the client's address in *addr when an untrusted hop
 * is found, else false with *last_trusted set (and the last trusted hop
 * in *lt) when the walk passed trusted hops.
 */
static bool walk(const char *header, bool forwarded, const struct trusted_proxies *t,
                 struct client_id *addr, bool *last_trusted, struct client_id *lt)
{
    size_t end = strlen(header);
    while (end > 0) {
        size_t start = end;
        while (start > 0 && header[start - 1] != ',')
            start--;
        const char *hop = header + start;
        size_t hn = end - start;
        if (forwarded && !forwarded_for(hop, hn, &hop, &hn))
            return false;
        if (!hop_address(hop, hn, addr))
            return false;
        if (!client_addr_proxies_contain(t, addr))
            return true;
        *last_trusted = true;
        *lt = *addr;
        end = start > 0 ? start - 1 : 0;
    }
    return false;
}

void client_addr_resolve(const struct client_id *peer, const char *forwarding,
                         const struct client_rules *r, struct client_id *out)
{
    struct client_id hop, last;
    bool last_trusted = false;
    const struct client_id *client = peer;
    const struct trusted_proxies *t = &r->proxies;
    if (peer->family != CLIENT_LOCAL && t->n > 0 && forwarding &&
        client_addr_proxies_contain(t, peer)) {
        if (walk(forwarding, r->header == CLIENT_HEADER_FORWARDED, t, &hop, &last_trusted, &last))
            client = &hop;
        else if (last_trusted)
            client = &last;
    }
    /* IPv4 as it is, IPv6 as its network */
    client_id_set(out, (enum client_family)client->family, client->addr,
                  client->family == CLIENT_IPV6 ? r->ipv6_prefix : 32);
}

void client_addr_join(char *buf, size_t bufsz, const char *line)
{
    if (bufsz == 0 || !line)
        return;
    size_t have = strnlen(buf, bufsz - 1), add = strlen(line);
    size_t sep = have > 0 ? 2 : 0;
    if (have + sep + add < bufsz) {
        memcpy(buf + have, ", ", sep);
        memcpy(buf + have + sep, line, add + 1);
        return;
    }
    /* too long: keep the right end of (buf, line), from an entry's start */
    const char *tail = add >= bufsz - 1 ? line + add - (bufsz - 1) : NULL;
    if (tail) {
        /* the line alone fills the buffer */
        const char *comma = strchr(tail, ',');
        snprintf(buf, bufsz, "%s", comma ? comma + 1 : "");
        return;
    }
    size_t drop = have + sep + add - (bufsz - 1);   /* bytes to lose from buf's left */
    const char *from = buf + drop;
    const char *comma = drop < have ? memchr(from, ',', have - drop) : NULL;
    size_t keep = comma ? have - (size_t)(comma + 1 - buf) : 0;
    memmove(buf, buf + have - keep, keep);
    buf[keep] = '\0';
    size_t at = keep;
    if (at > 0) {
        memcpy(buf + at, ", ", 2);
        at += 2;
    }
    memcpy(buf + at, line, add + 1);
}
