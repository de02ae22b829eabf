/* layout.c - the gradebook layouts' names and files (layout.h). */
#include "gradebook/layout.h"

#include <string.h>

#include "gradebook/entry.h"

static const char *const layout_names[] = { "default", "canvas", "moodle" };
static const char *const layout_files[] = {
    "gradebook.csv", "gradebook-canvas.csv", "gradebook-moodle.csv",
};

bool gradebook_layout_from_str(const char *s, enum gradebook_layout *l)
{
    for (int i = 0; i <= GRADEBOOK_LAYOUT_MOODLE; i++)
        if (!strcmp(s, layout_names[i])) {
            *l = (enum gradebook_layout)i;
            return true;
        }
    return false;
}

const char *gradebook_layout_to_str(enum gradebook_layout l)
{
    return l <= GRADEBOOK_LAYOUT_MOODLE ? layout_names[l] : "default";
}

const char *gradebook_layout_file(enum gradebook_layout l)
{
    return l <= GRADEBOOK_LAYOUT_MOODLE ? layout_files[l] : "gradebook.csv";
}

void gradebook_list_add(char *list, size_t size, const char *id)
{
    size_t len = strlen(list);
    if (len + strlen(id) + 8 >= size) {
        if (len + 5 < size && !strstr(list, ", ..."))
            strcat(list, ", ...");
        return;
    }
    if (len)
        strcat(list, ", ");
    strcat(list, id);
}
