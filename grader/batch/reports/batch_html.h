/*
 * batch_html.h - what the batch's HTML pages share: escaping, the page's
 * frame and its style sheet. Every page is self-contained (inline CSS
 * and SVG, no script, no font, no image from anywhere) and its
 * Content-Security-Policy forbids any request, so a page opened from a
 * student's folder cannot reach another host. Readable on a phone
 * (one column, tables that scroll sideways) and in print.
 */
#ifndef BUTTERFLY_BATCH_HTML_H
#define BUTTERFLY_BATCH_HTML_H

#include <stdio.h>

/* Writes s as HTML text or attribute value: & < > " ' escaped. */
void batch_html_text(FILE *f, const char *s);

/* Writes the href of a student's report from a folder `up` levels below
 * OUT ("" or "../"): reports/KEY.html, with KEY's '%' written as %25. */
void batch_html_report_href(FILE *f, const char *up, const char *key);

/* Writes the doctype, the head (title escaped, the policy, the style)
 * and opens the body. */
void batch_html_begin(FILE *f, const char *title);

/* Closes the body and the page. */
void batch_html_end(FILE *f);

/* The colour of a verdict's status in charts, as CSS ("#1a7f37"). */
const char *batch_html_status_colour(int status);

#endif
