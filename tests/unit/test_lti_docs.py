"""docs/LTI.md states LTI's bounds as grader/common/defaults.h has them.

usage: test_lti_docs.py SOURCE_ROOT
"""
import os
import re
import sys

ROOT = sys.argv[1]
with open(os.path.join(ROOT, "grader", "common", "defaults.h")) as f:
    defaults = f.read()
with open(os.path.join(ROOT, "docs", "LTI.md")) as f:
    doc = f.read()


def value(name):
    m = re.search(r"#define %s\s+\(?([0-9u* ]+)\)?" % name, defaults)
    assert m, name
    return eval(m.group(1).replace("u", ""))   # noqa: S307 - our own integer constants


# (constant, how the doc says it)
WANT = [
    ("LTI_FETCH_TIMEOUT_MS", lambda v: "%d s" % (v // 1000)),
    ("LTI_MAX_KEY_SET", lambda v: "%d KiB" % (v // 1024)),
    ("LTI_KEY_SET_TTL_S", lambda v: "kept %d minutes" % (v // 60)),
    ("LTI_KEY_SET_REFETCH_S", lambda v: "every %d seconds" % v),
    ("LTI_CLOCK_SKEW_S", lambda v: "%d s ahead" % v),
    ("LTI_MAX_ID_TOKEN", lambda v: "%d KiB" % (v // 1024)),
    ("LTI_MAX_FORM", lambda v: "%d KiB" % (v // 1024)),
    ("LTI_STATE_LIFETIME_S", lambda v: "%d minutes" % (v // 60)),
    ("LTI_RETRY_FIRST_MS", lambda v: "after %d s" % (v // 1000)),
    ("LTI_SEND_ATTEMPTS", lambda v: "%d times" % v),
    ("LTI_KEY_OVERLAP_S", lambda v: "%d days" % (v // 86400)),
    ("LTI_KEYS_REFRESH_S", lambda v: "within %d seconds" % v),
    ("LTI_SEND_TIMEOUT_MS", lambda v: "%d s per call" % (v // 1000)),
    ("LTI_ASSERTION_LIFETIME_S", lambda v: "%d minutes" % (v // 60)),
    ("LTI_RSA_BITS", lambda v: "%d bits" % v),
]
flat = re.sub(r"\s+", " ", doc)
bad = []
for name, say in WANT:
    text = say(value(name))
    if text not in flat:
        bad.append("%s: docs/LTI.md does not say %r" % (name, text))
assert value("LTI_RETRY_MAX_MS") == 60000 and "up to a minute" in flat, "LTI_RETRY_MAX_MS"
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
