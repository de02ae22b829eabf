/*
 * glslang_oracle.h - glslang itself as the judge of the body checks: does
 * glslang's preprocessor act on a directive of the body that the harness
 * owns? Used by the directive unit test and the source_check fuzz target.
 */
#ifndef BUTTERFLY_GLSLANG_ORACLE_H
#define BUTTERFLY_GLSLANG_ORACLE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Preprocesses body inside the harness with glslang (shaderc, preprocess
 * only) and returns true when the result holds a directive other than the
 * harness's own, or the log names one of #version, #extension, #line,
 * #pragma or #include (glslang acted on it). When not NULL, what (whatsz)
 * gets the offending line.
 */
bool glslang_acts_on_directive(const char *body, size_t len, char *what, size_t whatsz);

/* Releases the oracle's compiler. */
void glslang_oracle_done(void);

#endif
