/* class_gradebook.h - the batch's gradebook layouts, written from the records. */
#ifndef BUTTERFLY_CLASS_GRADEBOOK_H
#define BUTTERFLY_CLASS_GRADEBOOK_H

#include "server/core/http.h"

/* GET /api/class/gradebook?layout=: the batch's layouts from the records,
 * written on the reader's thread; klass NULL: every student. r's
 * `feature` is its struct class_req (class_http.h), made already. */
enum MHD_Result class_gradebook_get(struct request *r, const char *klass);

#endif
