/* class_http.h - the class view's routes: /class and /api/class/... (the
 * instructor's). */
#ifndef BUTTERFLY_CLASS_HTTP_H
#define BUTTERFLY_CLASS_HTTP_H

#include "server/core/http.h"

/* Answers r, a route of the class view, for r->who (403 for anyone but
 * the instructor). */
enum MHD_Result class_http_get(struct request *r, const char *url);

#endif
