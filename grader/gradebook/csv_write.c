/* csv_write.c - CSV rows with the spreadsheet-formula guard (csv_write.h). */
#include "gradebook/csv_write.h"

#include <ctype.h>
#include <string.h>

/* A plain decimal number a spreadsheet reads as a value, not a formula:
 * a sign, digits with at most one point, an optional exponent. */
static bool plain_number(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    bool digits = false, point = false;
    for (; *p; p++) {
        if (isdigit((unsigned char)*p))
            digits = true;
        else if (*p == '.' && !point)
            point = true;
        else
            break;
    }
    if (!digits)
        return false;
    if (*p == 'e' || *p == 'E') {
        p++;
        p += *p == '+' || *p == '-';
        if (!isdigit((unsigned char)*p))
            return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    return *p == '\0';
}

bool csv_is_formula(const char *s)
{
    switch (s[0]) {
    case '=': case '@': case '\t': case '\r':
        return true;
    case '+': case '-':
        return !plain_number(s);
    default:
        return false;
    }
}

static bool needs_quotes(const char *s)
{
    size_t len = strlen(s);
    if (len && (s[0] == ' ' || s[len - 1] == ' '))
        return true;
    return strpbrk(s, ",\"\r\n") != NULL;
}

/* The fields of a row, without its line end. */
static void write_fields(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask)
{
    for (size_t i = 0; i < n; i++) {
        const char *s = fields[i] ? fields[i] : "";
        bool guard = (guard_mask == CSV_GUARD_ALL || (i < 64 && (guard_mask >> i & 1)))
                     && csv_is_formula(s);
        bool quote = needs_quotes(s);
        if (i)
            fputc(',', f);
        if (quote)
            fputc('"', f);
        if (guard)
            fputc('\'', f);
        for (const char *p = s; *p; p++) {
            if (*p == '"' && quote)
                fputc('"', f);
            fputc(*p, f);
        }
        if (quote)
            fputc('"', f);
    }
}

void csv_write_row(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask)
{
    write_fields(f, fields, n, guard_mask);
    fputs("\r\n", f);
}

void csv_write_row_lf(FILE *f, const char *const *fields, size_t n, unsigned long guard_mask)
{
    write_fields(f, fields, n, guard_mask);
    fputc('\n', f);
}
