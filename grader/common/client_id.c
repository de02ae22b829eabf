/* client_id.c - a client's address, compared and hashed in binary, printed at the edge. */
#include "common/client_id.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "common/hash.h"

void client_id_local(struct client_id *id)
{
    memset(id, 0, sizeof *id);
}

void client_id_set(struct client_id *id, enum client_family family, const uint8_t *bytes,
                   unsigned prefix)
{
    memset(id, 0, sizeof *id);
    if (family == CLIENT_IPV4) {
        id->family = CLIENT_IPV4;
        id->prefix = 32;
        memcpy(id->addr, bytes, 4);
        return;
    }
    if (family != CLIENT_IPV6)
        return;
    if (prefix == 0 || prefix > 128)
        prefix = 128;
    id->family = CLIENT_IPV6;
    id->prefix = (uint8_t)prefix;
    unsigned full = prefix / 8, rest = prefix % 8;
    memcpy(id->addr, bytes, full);
    if (rest)
        id->addr[full] = (uint8_t)(bytes[full] & (0xff << (8 - rest)));
}

bool client_id_equal(const struct client_id *a, const struct client_id *b)
{
    return a->family == b->family && a->prefix == b->prefix &&
           !memcmp(a->addr, b->addr, sizeof a->addr);
}

uint64_t client_id_hash(const struct client_id *id)
{
    uint8_t key[2 + sizeof id->addr];
    key[0] = id->family;
    key[1] = id->prefix;
    memcpy(key + 2, id->addr, sizeof id->addr);
    return hash_fnv1a64(key, sizeof key);
}

char *client_id_format(const struct client_id *id, char *out, size_t outsz)
{
    char text[CLIENT_ID_TEXT_MAX];
    if (id->family == CLIENT_IPV4 && inet_ntop(AF_INET, id->addr, text, sizeof text))
        snprintf(out, outsz, "%s", text);
    else if (id->family == CLIENT_IPV6 && id->prefix < 128 &&
             inet_ntop(AF_INET6, id->addr, text, sizeof text))
        snprintf(out, outsz, "%s/%u", text, (unsigned)id->prefix);
    else if (id->family == CLIENT_IPV6 && inet_ntop(AF_INET6, id->addr, text, sizeof text))
        snprintf(out, outsz, "%s", text);
    else
        snprintf(out, outsz, "-");
    return out;
}
