/* compile_column.h - the column of a compiler message, where its words prove it. */
#ifndef BUTTERFLY_COMPILE_COLUMN_H
#define BUTTERFLY_COMPILE_COLUMN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True when the body's lines are the lines glslang counts, so that a
 * column found on a line is the column glslang meant: false when the code
 * (`len` bytes, comments blanked) holds a directive (#define could move a
 * token, #line the numbering) or the body a line continuation (even in a
 * comment).
 */
bool compile_columns_trusted(const char *code, const char *body, size_t len);

/*
 * The column, 1-based in UTF-16 code units of the line (bytes for ASCII),
 * of the token that glslang's message `raw` (without its "body:L: error: "
 * prefix) quotes, on line `line` (1-based) of the body, or 0 when the
 * message does not prove one: the token is not on that line, or stands
 * there more than once and the message cannot say which. `code` is the
 * body with comments blanked (same bytes at the same places), `body` the
 * student's text, both `len` bytes; `param` is the exercise's parameter
 * as the student writes it (the harness's bf_half).
 */
int compile_column_of_token(const char *raw, const char *param, const char *code,
                            const char *body, size_t len, int line);

/*
 * The column just past the last character of line `line` that is neither
 * a space nor in a comment (where a missing ';' goes), or 0 for a blank
 * line or one past the body. Arguments as for compile_column_of_token.
 */
int compile_column_after_code(const char *code, const char *body, size_t len, int line);

#endif
