/*
 * spirv_module.h - a read-only index of a SPIR-V module: its instructions
 * and, for every result id, the instruction that defines it.
 *
 * Only for modules whose instruction lengths were already checked
 * (spirv_check's first pass, or SPIRV-Tools' validator): the index trusts
 * every word count that lands inside the module, and refuses the rest.
 */
#ifndef BUTTERFLY_SPIRV_MODULE_H
#define BUTTERFLY_SPIRV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPIRV_HEADER_WORDS 5

struct spirv_module {
    const uint32_t *words;    /* borrowed */
    size_t nwords;
    uint32_t bound;           /* ids are below this */
    size_t *def;              /* owned: def[id] = word offset of its definition, 0: none */
};

/* One instruction: `w` points at its first word. */
struct spirv_ins {
    const uint32_t *w;
    size_t at;                /* word offset in the module */
    uint32_t wc, op;
    uint32_t result_type;     /* 0 when the opcode has none */
    uint32_t result;          /* 0 when the opcode has none */
};

/*
 * Indexes `words` (borrowed: it must outlive m). False when the module is
 * shorter than a header, an instruction overruns it, an id is out of the
 * bound, or memory runs out. Release with spirv_module_clear.
 */
bool spirv_module_index(struct spirv_module *m, const uint32_t *words, size_t nwords);

/* Frees what the index owns. Accepts a zeroed module. */
void spirv_module_clear(struct spirv_module *m);

/*
 * Decodes the instruction at word offset `at` into *ins. False at the end
 * of the module or on a length that overruns it.
 */
bool spirv_module_at(const struct spirv_module *m, size_t at, struct spirv_ins *ins);

/* The instruction that defines id, into *ins; false when none does. */
bool spirv_module_def(const struct spirv_module *m, uint32_t id, struct spirv_ins *ins);

/*
 * The value of an integer OpConstant id of at most 32 bits, into *value;
 * false when id is not one (a specialisation constant, say).
 */
bool spirv_module_constant_u32(const struct spirv_module *m, uint32_t id, uint32_t *value);

/*
 * The source line (from OpLine debug instructions) of the first
 * instruction inside a function for which match() is true; 0 when none
 * matches or the match has no line. An OpLine holds until the next one,
 * an OpNoLine or the end of its block, as the SPIR-V spec says.
 */
int spirv_module_first_line(const struct spirv_module *m,
                            bool (*match)(const struct spirv_module *m,
                                          const struct spirv_ins *ins, void *arg),
                            void *arg);

/* Where the result type and result id of an instruction of opcode `op`
 * sit: each 0 when it has none, else 1 or 2. */
void spirv_result_positions(uint32_t op, unsigned *type_at, unsigned *result_at);

#endif
