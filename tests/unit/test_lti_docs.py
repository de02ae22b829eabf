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
    ("LTI_KEY_SET_WAITERS", lambda v: "(%d at most;" % v),
    ("LTI_MAX_JWT_HEADER", lambda v: "at most %d KiB)" % (v // 1024)),
    ("LTI_CONNECT_TIMEOUT_MS", lambda v: "connect timeout (%d s)" % (v // 1000)),
    ("LTI_MAX_ANSWER", lambda v: "%d KiB otherwise" % (v // 1024)),
    ("LTI_CHOICE_LIFETIME_S", lambda v: "the choice is good for %d minutes" % (v // 60)),
    ("LTI_MAX_DL_DATA", lambda v: "at most %d bytes of data" % v),
    ("LTI_REGISTRATION_LIFETIME_S", lambda v: "within **%d minutes**" % (v // 60)),
    ("LTI_MAX_REG_CONFIG", lambda v: "at most %d KiB), and refuses" % (v // 1024)),
    ("LTI_UNKNOWN_PLATFORM_TRIES", lambda v: "%d times, then marked failed" % v),
    ("LTI_KEYS_REFRESH_S", lambda v: "tried again after %d seconds" % (2 * v)),
    ("LTI_KEYS_REFRESH_S", lambda v: "read it within %d seconds" % v),
    ("LTI_MAKE_LEASE_MS", lambda v: "tried again after %d s (the lease)" % (v // 1000)),
]
flat = re.sub(r"\s+", " ", doc)
bad = []
for name, say in WANT:
    text = say(value(name))
    if text not in flat:
        bad.append("%s: docs/LTI.md does not say %r" % (name, text))
# the refusal reasons: server/lti_check.c's table, each in the doc's table
with open(os.path.join(ROOT, "server", "lti", "lti_check.c")) as f:
    table = re.search(r"lti_check_reasons\[\w*\] = \{(.*?)\n\};", f.read(), re.S).group(1)
codes = re.findall(r'\{ "(\w+)",', table)
# the reason column of the table of checks (its rows up to the blank line)
rows = doc.split("| check | reason |", 1)[-1].split("\n\n", 1)[0]
documented = re.findall(r"`(\w+)`", "\n".join(r.rsplit("|", 2)[-2] for r in
                                             rows.splitlines()[2:]))
if len(codes) < 20 or "alg_none" not in codes:
    bad.append("server/lti_check.c's lti_check_reasons table is not where this test reads it")
for code in sorted(set(documented) - set(codes)):
    bad.append("docs/LTI.md names the reason %r, which server/lti_check.c does not list" % code)
for code in codes:
    if code not in documented:
        bad.append("docs/LTI.md's table of checks does not name the reason %r" % code)
assert value("LTI_RETRY_MAX_MS") == 60000 and "up to a minute" in flat, "LTI_RETRY_MAX_MS"
print("\n".join(bad) or "ok")
sys.exit(1 if bad else 0)
