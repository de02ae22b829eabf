/* session.c - the principal, its signed cookie, and display names. */
#include "server/identity/session.h"

#include "common/clock.h"
#include "common/defaults.h"

#include <jansson.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* SESSION_VALUE_MAX (defaults.h) bounds the work a hostile cookie can
 * cause before its signature fails. */
#define COOKIE_MAX SESSION_VALUE_MAX

bool session_equal(const void *a, const void *b, size_t n)
{
    return memeql_sec(a, b, n) != 0;
}

static void mac_of(const uint8_t key[SESSION_KEY_BYTES], const char *data, size_t len,
                   uint8_t out[SHA256_DIGEST_SIZE])
{
    struct hmac_sha256_ctx ctx;
    hmac_sha256_set_key(&ctx, SESSION_KEY_BYTES, key);
    hmac_sha256_update(&ctx, len, (const uint8_t *)data);
    hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

static void to_hex(const uint8_t *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* Decodes 2n hex digits into n bytes; false on any other character. */
static bool from_hex(const char *in, size_t n, uint8_t *out)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(in[2 * i]), lo = hex_digit(in[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

bool session_fingerprint_hex(const char *sha256_hex, uint8_t out[SESSION_CRED_BYTES])
{
    return sha256_hex && strnlen(sha256_hex, 2 * SHA256_DIGEST_SIZE + 1) == 2 * SHA256_DIGEST_SIZE &&
           from_hex(sha256_hex, SESSION_CRED_BYTES, out);
}

void session_fingerprint_token(const char *token, uint8_t out[SESSION_CRED_BYTES])
{
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, strlen(token), (const uint8_t *)token);
    sha256_digest(&ctx, sizeof d, d);
    memcpy(out, d, SESSION_CRED_BYTES);
}

/* What a signed value is for: a session, or a link's sign-in waiting for
 * "Sign in as NAME?" ("u": "pending"; a session carries no "u", as it did
 * before pending ones existed). One is never read as the other. */
static char *make_with(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                       time_t now, unsigned lifetime_s, bool pending, bool with_section);

/* The value, with the section when it fits within COOKIE_MAX (a long id,
 * name and section together may not: the section is only shown, so the
 * session goes on without it rather than not at all). */
static char *make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p, time_t now,
                  unsigned lifetime_s, bool pending)
{
    char *v = make_with(key, p, now, lifetime_s, pending, p->section[0] != '\0');
    if (v && strlen(v) > COOKIE_MAX && p->section[0]) {
        free(v);
        v = make_with(key, p, now, lifetime_s, pending, false);
    }
    if (v && strlen(v) > COOKIE_MAX) {
        free(v);   /* it would not be read back */
        v = NULL;
    }
    return v;
}

static char *make_with(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                       time_t now, unsigned lifetime_s, bool pending, bool with_section)
{
    if (strlen(p->id) >= PRINCIPAL_ID_MAX || strlen(p->name) >= PRINCIPAL_NAME_MAX ||
        strnlen(p->section, PRINCIPAL_SECTION_MAX) >= PRINCIPAL_SECTION_MAX)
        return NULL;
    char cred[2 * SESSION_CRED_BYTES + 1] = "";
    if (p->has_cred)
        to_hex(p->cred, SESSION_CRED_BYTES, cred);
    /* "h": made by a server that names its cookies __Host- over TLS; a
     * value without it under the bare name is an older server's, honoured
     * once (session_cookie_read's before_host_names), and one with it
     * under the bare name was tossed there */
    /* "m": the issue in ms, which a renewal in the same second as a
     * session needs to tell which came first (credentials_current) */
    int64_t ms = clock_wall_ms();
    if (ms / 1000 != (int64_t)now)
        ms = (int64_t)now * 1000;   /* a caller's own clock (tests) */
    json_t *j = json_pack("{s:s, s:I, s:I, s:I, s:s, s:s, s:s, s:b}", "k",
                          principal_kind_to_str(p->kind), "t", (json_int_t)now, "m",
                          (json_int_t)ms, "e", (json_int_t)(now + (time_t)lifetime_s), "i",
                          p->id, "n", p->name, "f", cred, "h", 1);
    if (j && pending)
        json_object_set_new(j, "u", json_string("pending"));
    /* "s": the roster's section, only when there is one (a value without
     * it, as every value before it, reads as no section) */
    if (j && with_section && json_object_set_new(j, "s", json_string(p->section)) != 0) {
        json_decref(j);
        j = NULL;
    }
    char *payload = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!payload)
        return NULL;
    size_t n = strlen(payload);
    char *out = malloc(2 * n + 1 + 2 * SHA256_DIGEST_SIZE + 1);
    if (out) {
        uint8_t mac[SHA256_DIGEST_SIZE];
        to_hex((const uint8_t *)payload, n, out);
        /* the signature covers the text sent, so nothing is parsed unsigned */
        mac_of(key, out, 2 * n, mac);
        out[2 * n] = '.';
        to_hex(mac, sizeof mac, out + 2 * n + 1);
    }
    free(payload);
    return out;
}

char *session_cookie_make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                          time_t now, unsigned lifetime_s)
{
    return make(key, p, now, lifetime_s, false);
}

char *session_pending_make(const uint8_t key[SESSION_KEY_BYTES], const struct principal *p,
                           time_t now)
{
    return make(key, p, now, PENDING_LIFETIME_S, true);
}

static enum principal_kind kind_of(const char *s)
{
    if (!strcmp(s, "student"))
        return PRINCIPAL_STUDENT;
    if (!strcmp(s, "guest"))
        return PRINCIPAL_GUEST;
    if (!strcmp(s, "instructor"))
        return PRINCIPAL_INSTRUCTOR;
    return PRINCIPAL_NONE;
}

static bool read_value(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                       bool pending, struct principal *out)
{
    memset(out, 0, sizeof *out);
    if (!value)
        return false;
    size_t len = strnlen(value, COOKIE_MAX + 1);
    const char *dot = memchr(value, '.', len);
    if (len > COOKIE_MAX || !dot)
        return false;
    size_t hex_len = (size_t)(dot - value);
    if (hex_len % 2 || len - hex_len - 1 != 2 * SHA256_DIGEST_SIZE)
        return false;
    uint8_t want[SHA256_DIGEST_SIZE], got[SHA256_DIGEST_SIZE];
    if (!from_hex(dot + 1, sizeof got, got))
        return false;
    mac_of(key, value, hex_len, want);
    if (!session_equal(want, got, sizeof want))
        return false;
    char payload[COOKIE_MAX / 2 + 1];
    if (!from_hex(value, hex_len / 2, (uint8_t *)payload))
        return false;
    payload[hex_len / 2] = '\0';
    json_t *j = json_loads(payload, JSON_REJECT_DUPLICATES, NULL);
    const char *k = NULL, *id = NULL, *name = NULL, *cred = "", *use = "", *section = "";
    json_int_t expiry = 0, issued = 0, issued_ms = 0;
    int host = 0;
    /* "t", "m", "f", "h" and "s" are absent from a cookie made before they were carried */
    bool ok = j && json_unpack(j, "{s:s, s?I, s?I, s:I, s:s, s:s, s?s, s?s, s?b, s?s}", "k", &k,
                               "t", &issued, "m", &issued_ms, "e", &expiry, "i", &id, "n", &name, "f", &cred,
                               "u", &use, "h", &host, "s", &section) == 0 &&
              strlen(section) < sizeof out->section &&
              !strcmp(use, pending ? "pending" : "") &&
              expiry > (json_int_t)now && kind_of(k) != PRINCIPAL_NONE &&
              strlen(id) < sizeof out->id && strlen(name) < sizeof out->name &&
              (!*cred || (strlen(cred) == 2 * SESSION_CRED_BYTES &&
                          from_hex(cred, SESSION_CRED_BYTES, out->cred)));
    /* an LTI launch's instructor lasts LTI_INSTRUCTOR_SESSION_S from its
     * launch, whatever the expiry says (cookies made before that bound
     * carried two weeks) */
    if (ok && kind_of(k) == PRINCIPAL_INSTRUCTOR &&
        !strncmp(id, PRINCIPAL_LTI_PREFIX, strlen(PRINCIPAL_LTI_PREFIX)) &&
        (issued <= 0 || (json_int_t)now - issued >= (json_int_t)LTI_INSTRUCTOR_SESSION_S))
        ok = false;
    if (ok) {
        out->kind = kind_of(k);
        out->has_cred = *cred != '\0';
        out->issued = issued > 0 ? (time_t)issued : 0;
        /* an "m" that is not within "t"'s second is not believed */
        out->issued_ms = issued > 0 ? (int64_t)issued * 1000 : 0;
        if (issued > 0 && issued_ms / 1000 == issued)
            out->issued_ms = (int64_t)issued_ms;
        out->before_host_names = !host;
        snprintf(out->id, sizeof out->id, "%s", id);
        snprintf(out->name, sizeof out->name, "%s", name);
        snprintf(out->section, sizeof out->section, "%s", section);
    }
    json_decref(j);
    if (!ok)
        memset(out, 0, sizeof *out);
    return ok;
}

bool session_cookie_read(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                         struct principal *out)
{
    return read_value(key, value, now, false, out);
}

bool session_pending_read(const uint8_t key[SESSION_KEY_BYTES], const char *value, time_t now,
                          struct principal *out)
{
    return read_value(key, value, now, true, out);
}


/* The length of the UTF-8 sequence at s (n bytes left) and its code point,
 * or 0 when it is not well formed (overlong, surrogate, past U+10FFFF). */
static size_t utf8_next(const unsigned char *s, size_t n, unsigned *cp)
{
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (!len || len > n || s[0] > 0xf4)
        return 0;
    unsigned c = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    static const unsigned least[] = { 0, 0, 0x80, 0x800, 0x10000 };
    if (c < least[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* A control character would rewrite a log line or a terminal; a
 * bidirectional override would reorder the name on the class view. */
static bool unshowable(unsigned cp)
{
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) ||
           (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void session_clean_name(const char *in, char *out, size_t outsz)
{
    if (!outsz)
        return;
    const unsigned char *s = (const unsigned char *)(in ? in : "");
    size_t len = strlen((const char *)s), n = 0;
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t step = utf8_next(s + i, len - i, &cp);
        if (!step) {
            i++;   /* a byte of no character */
            continue;
        }
        if (!unshowable(cp) && !(n == 0 && cp == ' ')) {
            if (n + step >= outsz)
                break;
            memmove(out + n, s + i, step);   /* n <= i: in place is safe */
            n += step;
        }
        i += step;
    }
    while (n && out[n - 1] == ' ')
        n--;
    out[n] = '\0';
}

bool session_check_name(const char *name, size_t len, size_t max_bytes, char *out,
                        size_t outsz, char *why, size_t whysz)
{
    while (len && name[0] == ' ') {
        name++;
        len--;
    }
    while (len && name[len - 1] == ' ')
        len--;
    if (len == 0) {
        snprintf(why, whysz, "Give a name to show with your submissions.");
        return false;
    }
    if (len > max_bytes || len >= outsz) {
        snprintf(why, whysz, "The name is over the limit of %zu bytes.", max_bytes);
        return false;
    }
    const unsigned char *s = (const unsigned char *)name;
    for (size_t i = 0; i < len;) {
        unsigned cp;
        size_t step = utf8_next(s + i, len - i, &cp);
        if (!step) {
            snprintf(why, whysz, "The name is not valid UTF-8.");
            return false;
        }
        if (unshowable(cp)) {
            snprintf(why, whysz, "The name holds a control character.");
            return false;
        }
        i += step;
    }
    memcpy(out, name, len);
    out[len] = '\0';
    return true;
}
