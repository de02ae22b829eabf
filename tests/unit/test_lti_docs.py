"""docs/LTI.md states LTI's bounds as grader/common/defaults.h has them,
and names only routes the server has, commands butterfly-admin has and
options one of them takes (an administrator types what the page says).

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


with open(os.path.join(ROOT, "server", "lti", "lti.h")) as f:
    lti_h = f.read()


def value(name, where=None):
    m = re.search(r"#define %s\s+\(?([0-9u* ]+)\)?" % name, where or defaults)
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
    # the course's roster (NRPS)
    ("LTI_ROSTER_REFRESH_S", lambda v: "never more often than every %d minutes" % (v // 60)),
    ("LTI_ROSTER_MAX_PAGES", lambda v: "stops after %d pages" % v),
    ("LTI_ROSTER_MAX_BYTES", lambda v: "or %d MiB" % (v // (1024 * 1024))),
    ("LTI_ROSTER_PAGE_TIMEOUT_MS", lambda v: "%d s per page" % (v // 1000)),
    # the sessions a launch makes
    ("SESSION_LIFETIME_S", lambda v: "(%d days, `SESSION_LIFETIME_S`)" % (v // 86400)),
    ("LTI_INSTRUCTOR_SESSION_S", lambda v: "(%d hours, `LTI_INSTRUCTOR_SESSION_S`)" % (v // 3600)),
]
# bounds of server/lti/lti.h
WANT_LTI_H = [
    ("LTI_MAX_FRAME_ORIGINS", lambda v: "`frame_origins` (at most %d," % v),
    ("LTI_MAX_SERVICE_ORIGINS", lambda v: "`service_origins` (at most %d," % v),
]
flat = re.sub(r"\s+", " ", doc)
bad = []
for name, say in WANT:
    text = say(value(name))
    if text not in flat:
        bad.append("%s: docs/LTI.md does not say %r" % (name, text))
for name, say in WANT_LTI_H:
    text = say(value(name, lti_h))
    if text not in flat:
        bad.append("%s (server/lti/lti.h): docs/LTI.md does not say %r" % (name, text))
# the Canvas JSON's privacy level and title, as the page tells the admin to expect
privacy = re.search(r'#define LTI_CANVAS_PRIVACY\s+"(\w+)"', defaults).group(1)
if "privacy level \"%s\" (JSON `%s`)" % (privacy.replace("_", " ").title(), privacy) not in flat:
    bad.append("LTI_CANVAS_PRIVACY: docs/LTI.md does not name the Canvas JSON's %r" % privacy)
title = re.search(r'#define LTI_TOOL_TITLE\s+"([^"]+)"', defaults).group(1)
if "Key Name: `%s`" % title not in flat:
    bad.append("LTI_TOOL_TITLE: docs/LTI.md's Canvas key is not named %r" % title)

# every route the page names (`/lti/launch`, `PUBLIC/lti/register?token=...`,
# `GET /api/tasks`) is one of server/routes.c's; one ending in / is a prefix
with open(os.path.join(ROOT, "server", "routes.c")) as f:
    routes = set(re.findall(r'\{ "(/[^"]*)",', f.read()))
if "/lti/launch" not in routes or "/api/tasks" not in routes:
    bad.append("server/routes.c's route table is not where this test reads it")
spans = re.findall(r"`([^`\n]+)`", doc)
named = set()
for span in spans:
    for path in re.findall(r"(?:^|\s|PUBLIC)(/[\w./{}-]*)", span):
        named.add(path)
PLATFORM_PATHS = {"/scores"}   # a line item's, on the platform: not ours
for path in sorted(named - PLATFORM_PATHS):
    if path.endswith("/") and any(r.startswith(path) for r in routes):
        continue
    if path not in routes:
        bad.append("docs/LTI.md names the route %r, which server/routes.c does not have" % path)

# every butterfly-admin command the page names is in its usage
with open(os.path.join(ROOT, "grader", "admin", "admin_main.c")) as f:
    admin = f.read()
usage = re.search(r"static void usage\(FILE \*out\)(.*?)\n\}", admin, re.S).group(1)
commands = re.findall(r'"  ([a-z][a-z -]*?[a-z])(?: [A-Z.\-[]|  |\\n)', usage)
if "lti registration-url" not in commands or "forget" not in commands:
    bad.append("butterfly-admin's usage is not where this test reads it: %r" % commands)
for line in re.findall(r"butterfly-admin((?: (?:--[\w-]+ \S+|[a-z][\w-]*))+)", flat):
    words = [w for w in re.sub(r"--[\w-]+ \S+", "", line).split()]
    said = " ".join(words)
    if not any(said == c or said.startswith(c + " ") for c in commands):
        bad.append("docs/LTI.md names `butterfly-admin%s`, not a command of its usage" % line)

# every option the page names is the server's (README's table, which is
# --help) or butterfly-admin's
with open(os.path.join(ROOT, "README.md")) as f:
    options = set(re.findall(r"^\| `(--[\w-]+)", f.read(), re.M))
options |= set(re.findall(r"(--[\w-]+)", usage))
for opt in sorted(set(re.findall(r"`(--[\w-]+)", doc))):
    if opt not in options:
        bad.append("docs/LTI.md names the option %r, which neither the server nor "
                   "butterfly-admin takes" % opt)
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
