/*
 * layout.h - the gradebook layouts, by the name an option or a URL gives
 * them (butterfly-batch --gradebook, GET /api/class/gradebook?layout=),
 * and the file each is written to or downloaded as.
 */
#ifndef BUTTERFLY_GRADEBOOK_LAYOUT_H
#define BUTTERFLY_GRADEBOOK_LAYOUT_H

#include <stdbool.h>

enum gradebook_layout { GRADEBOOK_LAYOUT_DEFAULT, GRADEBOOK_LAYOUT_CANVAS,
                        GRADEBOOK_LAYOUT_MOODLE };

/* The marking an unverified name (an open lab's) gets wherever it is shown. */
#define GRADEBOOK_UNVERIFIED_MARK "(unverified name)"

/* Parses a layout's name ("default", "canvas", "moodle"); false when it
 * names none. */
bool gradebook_layout_from_str(const char *s, enum gradebook_layout *l);

/* The layout's name ("canvas"); never NULL. */
const char *gradebook_layout_to_str(enum gradebook_layout l);

/* The file a layout is written as ("gradebook-canvas.csv"); never NULL. */
const char *gradebook_layout_file(enum gradebook_layout l);

#endif
