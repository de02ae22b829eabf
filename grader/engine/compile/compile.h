/* compile.h - GLSL to SPIR-V with shaderc, diagnostics on the body's lines. */
#ifndef BUTTERFLY_COMPILE_H
#define BUTTERFLY_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/exercise/exercise.h"
#include "common/verdict.h"

#include "common/defaults.h"

#define COMPILE_MAX_DIAGNOSTICS 50
#define COMPILE_MAX_LOG         COMPILE_MAX_LOG_BYTES

struct compile_result {
    bool ok;
    uint32_t *spirv;             /* owned; NULL unless ok */
    size_t nwords;
    struct diagnostic *diags;    /* owned, ndiags entries */
    size_t ndiags;
    char *log;                   /* owned, raw compiler log, capped; may be NULL */
    bool log_truncated;
};

struct compiler;

/* Creates the process's compiler (reused for every body). NULL on failure. */
struct compiler *compiler_new(void);

/* Frees the compiler. Accepts NULL. */
void compiler_free(struct compiler *c);

/*
 * Compiles `body` (len bytes, already through source_check) inside the
 * harness of exercise e. Always fills *out: on success out->ok with the SPIR-V; on a
 * compile error !out->ok with the diagnostics (in plain words where
 * compile_messages has them, glslang's text then in `original`) and the
 * raw log. Every text is made visible and cut (compile_text.h): a message
 * or original to COMPILE_MAX_MESSAGE_BYTES, the diagnostics' texts
 * together to COMPILE_MAX_DIAG_BYTES (the diagnostics past it are left
 * out), the log to COMPILE_MAX_LOG (log_truncated says so). Returns
 * false only when the compiler itself failed (out of memory).
 * Release *out with compile_result_clear().
 */
bool compiler_compile_exercise(struct compiler *c, const struct exercise *e, const char *body,
                               size_t len, struct compile_result *out);

/* compiler_compile_exercise for the butterfly (exercise_default()). */
bool compiler_compile(struct compiler *c, const char *body, size_t len,
                      struct compile_result *out);

/* Releases what a compile result owns and zeroes it. Accepts NULL. */
void compile_result_clear(struct compile_result *r);

/*
 * Parses a glslang log into diagnostics (exposed for tests). Lines
 * "body:L: severity: msg" are on the body; "1:L: ..." come from the
 * harness after it and are placed on line body_lines + 1.
 */
size_t compile_parse_log(const char *log, int body_lines,
                         struct diagnostic *diags, size_t max);

#endif
