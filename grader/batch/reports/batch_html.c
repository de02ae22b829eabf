/* batch_html.c - escaping and the frame of the batch's HTML pages. */
#include "batch/reports/batch_html.h"

#include "batch/batch_output.h"
#include "common/verdict.h"

/* One style sheet for every page: a column of text on a phone, tables
 * that scroll sideways rather than widen the page, and in print no
 * links' colours and no row split across pages. */
static const char style[] =
    ":root{color-scheme:light;--ok:#1a7f37;--bad:#cf222e;--mid:#9a6700;--muted:#57606a;"
    "--line:#d0d7de;--bg:#f6f8fa}"
    "*{box-sizing:border-box}"
    "body{font:16px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1f2328;"
    "margin:0 auto;max-width:64rem;padding:1rem}"
    "h1{font-size:1.6rem;margin:.2rem 0 .6rem}h2{font-size:1.2rem;margin:1.6rem 0 .5rem;"
    "border-bottom:1px solid var(--line);padding-bottom:.2rem}"
    "a{color:#0969da}"
    ".muted{color:var(--muted)}"
    ".figures{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin:.5rem 0;padding:0}"
    ".figures div{min-width:7rem}.figures dt{font-size:.8rem;color:var(--muted)}"
    ".figures dd{margin:0;font-size:1.3rem;font-weight:600}"
    ".scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}"
    "table{border-collapse:collapse;width:100%;font-size:.95rem}"
    "th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid var(--line);"
    "vertical-align:top}"
    "th{background:var(--bg);font-weight:600}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.bar{width:40%;min-width:6rem}"
    ".barline{display:flex;align-items:center;gap:.5rem}.barline svg{flex:1}"
    ".barline span{min-width:3.5rem;text-align:right;font-variant-numeric:tabular-nums}"
    "svg{display:block;max-width:100%;height:auto}"
    "svg.bar{width:100%;height:.9rem}"
    "svg.chart{width:100%}svg.histogram{max-width:36rem}"
    ".ok{color:var(--ok)}.bad{color:var(--bad)}"
    "pre{background:var(--bg);padding:.6rem;overflow-x:auto;font-size:.85rem;"
    "white-space:pre-wrap;word-break:break-word}"
    "code{font-size:.9em}"
    ".legend{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;"
    "vertical-align:-.1rem;border-radius:2px}"
    "@media (max-width:40rem){body{padding:.6rem;font-size:15px}"
    "th.wide,td.wide{display:none}td.bar{width:30%}}"
    "@media print{body{max-width:none;padding:0;font-size:10pt}a{color:inherit;"
    "text-decoration:none}.scroll{overflow:visible}tr,.keep{break-inside:avoid}"
    "thead{display:table-header-group}h2{break-after:avoid}"
    "svg,.legend{print-color-adjust:exact;-webkit-print-color-adjust:exact}"
    ".no-print{display:none}}";

void batch_html_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void batch_html_report_href(FILE *f, const char *up, const char *key)
{
    /* a key holds a-z 0-9 . _ - and %XX (batch_id_key): only '%' needs
     * escaping in a URL path, else "%41lice" would mean "Alice" */
    fprintf(f, "%s%s/", up, BATCH_REPORTS_DIR);
    for (const char *p = key; *p; p++) {
        if (*p == '%')
            fputs("%25", f);
        else
            fputc(*p, f);
    }
    fputs(".html", f);
}

void batch_html_begin(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"referrer\" content=\"no-referrer\">\n<title>", f);
    batch_html_text(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n", style);
}

void batch_html_end(FILE *f)
{
    fputs("</body>\n</html>\n", f);
}

const char *batch_html_status_colour(int status)
{
    switch (status) {
    case VERDICT_ACCEPTED: return "#1a7f37";
    case VERDICT_WRONG_ANSWER: return "#cf222e";
    case VERDICT_COMPILATION_ERROR: return "#bf8700";
    case VERDICT_TIME_LIMIT: return "#8250df";
    case VERDICT_REJECTED: return "#57606a";
    case VERDICT_INTERNAL_ERROR: return "#24292f";
    default: return "#bc4c00";   /* the runtime errors */
    }
}
