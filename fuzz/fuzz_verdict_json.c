/*
 * fuzz_verdict_json - the verdict's JSON as the programs that read it back
 * parse it (verdict_from_json: the batch, the CLI, the server's
 * ?format=text; the pool relays it unparsed), then write it out
 * (verdict_to_json) and as the text report. Checked: what was read can be
 * written and read again.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

#include "common/report.h"
#include "common/verdict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_t *j = json_loadb((const char *)data, size, 0, NULL);
    if (!j)
        return 0;
    struct verdict *v = verdict_from_json(j);
    json_decref(j);
    if (!v)
        return 0;
    json_t *out = verdict_to_json(v);
    if (!out)
        abort();
    char *text = json_dumps(out, JSON_COMPACT);
    struct verdict *again = verdict_from_json(out);
    if (!text || !again)
        abort();
    char *report = report_to_string(v);
    if (!report)
        abort();
    free(report);
    free(text);
    json_decref(out);
    verdict_free(again);
    verdict_free(v);
    return 0;
}
