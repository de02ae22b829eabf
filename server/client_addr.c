/* client_addr.c - the client behind a trusted proxy. */
#include "server/client_addr.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/defaults.h"

void client_rules_init(struct client_rules *r)
{
    memset(r, 0, sizeof *r);
    if (!client_header_parse(DEFAULT_PROXY_HEADER, &r->header))
        r->header = CLIENT_HEADER_X_FORWARDED_FOR;
    r->ipv6_prefix = DEFAULT_IPV6_CLIENT_PREFIX;
}

const char *client_header_to_str(enum client_header h)
{
    return h == CLIENT_HEADER_FORWARDED ? "Forwarded" : "X-Forwarded-For";
}

bool client_header_parse(const char *name, enum client_header *h)
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
 * Parses an address in text into family and bytes. An IPv4-mapped IPv6
 * address ("::ffff:192.0.2.1") becomes plain IPv4, as the server writes a
 * dual-stack peer (http.c): a hop or a proxy written either way is the
 * same address. *mapped (may be NULL) says that happened.
 */
static bool parse_addr(const char *text, int *family, unsigned char addr[16], bool *mapped)
{
    if (mapped)
        *mapped = false;
    if (inet_pton(AF_INET, text, addr) == 1) {
        *family = AF_INET;
        return true;
    }
    struct in6_addr a;
    if (inet_pton(AF_INET6, text, &a) != 1)
        return false;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        *family = AF_INET;
        memcpy(addr, a.s6_addr + 12, 4);
        if (mapped)
            *mapped = true;
    } else {
        *family = AF_INET6;
        memcpy(addr, a.s6_addr, 16);
    }
    return true;
}

bool trusted_proxies_add(struct trusted_proxies *t, const char *spec, char *err, size_t errsz)
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
    if (!parse_addr(text, &net.family, net.addr, &mapped))
        goto bad;
    /* a mapped network keeps its IPv6 prefix length: ::ffff:10.0.0.0/104
     * is 10.0.0.0/8 */
    unsigned skip = mapped ? 96 : 0;
    unsigned bits = net.family == AF_INET ? 32 : 128;
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

static bool in_net(const struct trusted_net *net, int family, const unsigned char *addr)
{
    if (net->family != family)
        return false;
    unsigned full = net->prefix / 8, rest = net->prefix % 8;
    if (memcmp(net->addr, addr, full) != 0)
        return false;
    if (rest == 0)
        return true;
    unsigned char mask = (unsigned char)(0xff << (8 - rest));
    return (net->addr[full] & mask) == (addr[full] & mask);
}

static bool trusted(const struct trusted_proxies *t, int family, const unsigned char *addr)
{
    for (size_t i = 0; i < t->n; i++)
        if (in_net(&t->nets[i], family, addr))
            return true;
    return false;
}

bool trusted_proxies_contain(const struct trusted_proxies *t, const char *addr)
{
    int family;
    unsigned char bytes[16];
    return parse_addr(addr, &family, bytes, NULL) && trusted(t, family, bytes);
}

/*
 * One hop of a forwarding header, as an address: trims blanks and quotes,
 * takes an IPv6 address out of its brackets, and drops an IPv4 port.
 * False for anything else ("unknown", an obfuscated name, garbage).
 */
static bool hop_address(const char *s, size_t n, int *family, unsigned char addr[16])
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
    return parse_addr(text, family, addr, NULL);
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
 * Returns true with the client's address when an untrusted hop is found,
 * else false with *last_trusted set when the walk passed trusted hops.
 */
static bool walk(const char *header, bool forwarded, const struct trusted_proxies *t,
                 int *family, unsigned char addr[16], bool *last_trusted,
                 int *lt_family, unsigned char lt_addr[16])
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
        if (!hop_address(hop, hn, family, addr))
            return false;
        if (!trusted(t, *family, addr))
            return true;
        *last_trusted = true;
        *lt_family = *family;
        memcpy(lt_addr, addr, 16);
        end = start > 0 ? start - 1 : 0;
    }
    return false;
}

/* The key of a client address: IPv4 as it is, IPv6 as its network. */
static bool client_key(int family, unsigned char addr[16], unsigned ipv6_prefix, char *out,
                       size_t outsz)
{
    char text[CLIENT_ADDR_LEN];
    if (family == AF_INET6 && ipv6_prefix < 128) {
        unsigned full = ipv6_prefix / 8, rest = ipv6_prefix % 8;
        if (rest)
            addr[full++] &= (unsigned char)(0xff << (8 - rest));
        memset(addr + full, 0, 16 - full);
    }
    if (!inet_ntop(family, addr, text, sizeof text))
        return false;
    if (family == AF_INET6 && ipv6_prefix < 128)
        snprintf(out, outsz, "%s/%u", text, ipv6_prefix);
    else
        snprintf(out, outsz, "%s", text);
    return true;
}

void client_addr_resolve(const char *peer, const char *forwarding, const struct client_rules *r,
                         char *out, size_t outsz)
{
    int family, lt_family = 0;
    unsigned char addr[16], lt_addr[16];
    bool last_trusted = false;
    snprintf(out, outsz, "%s", peer ? peer : "-");
    if (!peer || !parse_addr(peer, &family, addr, NULL))
        return;
    const struct trusted_proxies *t = &r->proxies;
    if (t->n > 0 && trusted(t, family, addr) && forwarding) {
        if (walk(forwarding, r->header == CLIENT_HEADER_FORWARDED, t, &family, addr,
                 &last_trusted, &lt_family, lt_addr)) {
            /* the client */
        } else if (last_trusted) {
            family = lt_family;
            memcpy(addr, lt_addr, 16);
        } else {
            parse_addr(peer, &family, addr, NULL);
        }
    }
    client_key(family, addr, r->ipv6_prefix, out, outsz);
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
