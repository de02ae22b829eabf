/*
 * lti_tag.c - a launch's tag (lti_tag.h): the resource link's number and
 * an HMAC-SHA256 of it with the student, under the session key.
 */
#include "server/identity/lti_tag.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <nettle/hmac.h>

#define TAG_MAC_BYTES 16   /* 128 bits of the HMAC: not guessable */

/* The MAC as hex; the text signed is told apart from a cookie's by its
 * first line, so neither is ever taken for the other. */
static void mac_hex(const uint8_t key[SESSION_KEY_BYTES], const char *student, int64_t link,
                    char out[2 * TAG_MAC_BYTES + 1])
{
    static const char digits[] = "0123456789abcdef";
    char text[64 + PRINCIPAL_ID_MAX];
    int n = snprintf(text, sizeof text, "butterfly lti launch\n%s\n%" PRId64, student, link);
    uint8_t mac[SHA256_DIGEST_SIZE];
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, SESSION_KEY_BYTES, key);
    hmac_sha256_update(&ctx, n < 0 ? 0 : (size_t)n, (const uint8_t *)text);
    hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, mac);
    for (size_t i = 0; i < TAG_MAC_BYTES; i++) {
        out[2 * i] = digits[mac[i] >> 4];
        out[2 * i + 1] = digits[mac[i] & 15];
    }
    out[2 * TAG_MAC_BYTES] = '\0';
}

bool lti_tag_make(const uint8_t key[SESSION_KEY_BYTES], const char *student, int64_t link,
                  char out[LTI_TAG_SIZE])
{
    if (link <= 0 || link > LTI_TAG_MAX_LINK || !student)
        return false;
    char mac[2 * TAG_MAC_BYTES + 1];
    mac_hex(key, student, link, mac);
    snprintf(out, LTI_TAG_SIZE, "%" PRId64 ".%s", link, mac);
    return true;
}

int64_t lti_tag_read(const uint8_t key[SESSION_KEY_BYTES], const char *student,
                     const char *tag)
{
    if (!tag || !student || strlen(tag) >= LTI_TAG_SIZE)
        return 0;
    /* digits only, no sign, no leading zero, at most 18 of them (LTI_TAG_MAX_LINK) */
    int64_t link = 0;
    size_t i = 0;
    for (; tag[i] >= '0' && tag[i] <= '9' && i < 18; i++)
        link = link * 10 + (tag[i] - '0');
    if (i == 0 || tag[0] == '0' || tag[i] != '.' || strlen(tag + i + 1) != 2 * TAG_MAC_BYTES)
        return 0;
    char want[2 * TAG_MAC_BYTES + 1];
    mac_hex(key, student, link, want);
    return session_equal(want, tag + i + 1, 2 * TAG_MAC_BYTES) ? link : 0;
}
