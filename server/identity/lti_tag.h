/*
 * lti_tag.h - the launch a page came from (issue 29, item 6).
 *
 * One browser has one session cookie, but a student may have the exercise
 * open from two resource links (two courses, two assignments) in two
 * tabs. Each launch therefore lands on a page whose address carries a tag
 * (/#launch=TAG) that the page sends with each submission
 * (LTI_LAUNCH_HEADER): the resource link it was launched from, signed for
 * the student it was launched as. The tag is read without the store, on
 * the HTTP thread; a student cannot name a link they were not launched
 * from, and a page of another student's launch is refused, not scored
 * for whoever is signed in now. Pure functions.
 */
#ifndef BUTTERFLY_LTI_TAG_H
#define BUTTERFLY_LTI_TAG_H

#include <stdbool.h>
#include <stdint.h>

#include "server/identity/session.h"

#define LTI_TAG_SIZE 64   /* "LINK.MAC" and the NUL: 18 digits, '.', 32 hex digits */
#define LTI_TAG_MAX_LINK 999999999999999999LL   /* 18 digits */

/* The tag of resource link `link` (1 to LTI_TAG_MAX_LINK) launched by
 * `student`, signed with key (the session key) into out. False when link
 * is out of that range or student is NULL. */
bool lti_tag_make(const uint8_t key[SESSION_KEY_BYTES], const char *student, int64_t link,
                  char out[LTI_TAG_SIZE]);

/* The link of tag when it is one lti_tag_make gave for this student with
 * this key; 0 otherwise (forged, another student's, malformed, NULL). */
int64_t lti_tag_read(const uint8_t key[SESSION_KEY_BYTES], const char *student,
                     const char *tag);

#endif
