/* iso8601.c - a date and time with its zone, as ms since the epoch (iso8601.h). */
#include "common/due/iso8601.h"

#include <string.h>

/* n decimal digits at s into *v. */
static bool digits(const char *s, int n, int *v)
{
    *v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        *v = *v * 10 + (s[i] - '0');
    }
    return true;
}

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool iso8601_ms(const char *t, int64_t *ms)
{
    int y, mo, d, h, mi, sec = 0, frac = 0;
    if (!t || strlen(t) > 64 || !digits(t, 4, &y) || t[4] != '-' || !digits(t + 5, 2, &mo) ||
        t[7] != '-' || !digits(t + 8, 2, &d) || (t[10] != 'T' && t[10] != 't' && t[10] != ' ') ||
        !digits(t + 11, 2, &h) || t[13] != ':' || !digits(t + 14, 2, &mi))
        return false;
    const char *p = t + 16;
    if (*p == ':') {
        if (!digits(p + 1, 2, &sec))
            return false;
        p += 3;
        if (*p == '.' || *p == ',') {
            int n = 0;
            for (p++; *p >= '0' && *p <= '9'; p++, n++)
                if (n < 3)
                    frac = frac * 10 + (*p - '0');
            if (n == 0)
                return false;
            for (; n < 3; n++)
                frac *= 10;
        }
    }
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
        return false;
    int zone = 0;
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0') {
        zone = 0;
    } else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
        int zh, zm;
        if (!digits(p + 1, 2, &zh) || !digits(p + 4, 2, &zm) || zh > 23 || zm > 59)
            return false;
        zone = (zh * 60 + zm) * (*p == '-' ? -1 : 1);
    } else {
        return false;   /* no zone: whose clock would it be? */
    }
    int64_t s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + (sec > 59 ? 59 : sec) -
                (int64_t)zone * 60;
    *ms = s * 1000 + frac;
    return true;
}
