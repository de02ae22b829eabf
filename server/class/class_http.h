/* class_http.h - the class view's routes: /class and /api/class/... (the
 * instructor's). */
#ifndef BUTTERFLY_CLASS_HTTP_H
#define BUTTERFLY_CLASS_HTTP_H

#include "common/exercise/exercise.h"
#include "server/core/http.h"

/* Answers r, a route of the class view, for r->who (403 for anyone but
 * the instructor). */
enum MHD_Result class_http_get(struct request *r);

/* What a class route reads on the reader's thread (the request's
 * `feature`, made by class_http_get before it queues a read, freed by
 * class_http_release). */
struct class_req {
    char student[PRINCIPAL_ID_MAX];   /* GET /api/class/students/{id} */
    char klass[STORE_ID_SIZE];        /* its class ("": every student) */
    int gradebook_layout;             /* GET /api/class/gradebook: enum gradebook_layout */
    char task[EX_ID_MAX + 1];         /* its ?task=: the exercise whose records count */
    json_t *members;                  /* owned: the class's students; NULL: every student */
};

/* What a ?task= that is not an exercise's id is told. */
/* ?task=all with the default layout: 400, saying where a column per exercise is */
#define CLASS_ALL_NEEDS_LMS "?task=all (a column per exercise) is for layout=canvas and " \
    "layout=moodle; the default layout is one exercise's (?task=ID), and the class summary " \
    "(/api/class/gradebook.csv) has a column per exercise."
#define CLASS_BAD_TASK "Name the exercise by its id: ?task=ID (letters a-z, digits, '_' and '-')."

/* Frees the request's class_req (the class rows' release). */
void class_http_release(struct request *r);

#endif
