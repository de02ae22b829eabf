#!/usr/bin/env python3
"""Runs a command under the system call filter of a systemd unit file.

usage: unit_sandbox.py UNIT_FILE COMMAND [ARG...]

systemd cannot be booted here, so this installs the same seccomp filter
systemd would: it reads SystemCallFilter=, SystemCallErrorNumber=,
SystemCallArchitectures= and RestrictAddressFamilies= from the unit,
expands the @groups as this machine's systemd defines them
(`systemd-analyze syscall-filter`), adds the calls systemd always allows,
loads the filter with libseccomp (Debian's python3-seccomp; it sets
no_new_privs, as NoNewPrivileges= does) and execs COMMAND. COMMAND and
every process it starts (the workers) then run under that filter, so a
system call that Mesa, shaderc or the server need and the unit forbids
shows up as a failure here.

Not reproduced: DynamicUser, the file-system and device namespaces, the
cgroup limits. `systemd-analyze verify` and `security` check those as
far as they can without a booted systemd.
"""
import errno
import os
import re
import socket
import subprocess
import sys

# Allowed whatever the filter says (systemd.exec(5), SystemCallFilter=).
ALWAYS = ["execve", "exit", "exit_group", "getrlimit", "rt_sigreturn", "sigreturn"]


def need_seccomp():
    """libseccomp's Python binding comes from Debian's python3-seccomp: run
    again under the system's python3 when this one (a pyenv) lacks it."""
    try:
        import seccomp  # noqa: F401
        return
    except ImportError:
        pass
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.access(system, os.X_OK):
        os.execv(system, [system] + sys.argv)
    sys.exit("unit_sandbox.py: no libseccomp for Python (apt-get install python3-seccomp)")


def unit_settings(path):
    """Every assignment in the unit's [Service] section, in order."""
    out, section = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line
                continue
            if section == "[Service]" and "=" in line:
                key, value = line.split("=", 1)
                out.append((key.strip(), value.strip()))
    return out


def syscall_groups():
    """This systemd's groups: {"@name": [member, ...]}, members being calls or groups."""
    text = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True, text=True,
                          check=True).stdout
    groups, current = {}, None
    for line in text.splitlines():
        if line.startswith("@"):
            current = groups.setdefault(line.split()[0], [])
        elif current is not None and line.strip() and not line.strip().startswith("#"):
            current.append(line.strip())
    return groups


def expand(names, groups, seen=None):
    seen = set() if seen is None else seen
    calls = set()
    for name in names:
        if name.startswith("@"):
            if name in seen:
                continue
            seen.add(name)
            if name not in groups:
                raise SystemExit("unit_sandbox.py: this systemd has no group %s" % name)
            calls |= expand(groups[name], groups, seen)
        else:
            calls.add(name.split(":")[0])
    return calls


def allowed_calls(settings, groups):
    """The allow list the SystemCallFilter= lines make, as systemd merges
    them: the first must be an allow list; a later "~" line removes."""
    allowed = None
    for key, value in settings:
        if key != "SystemCallFilter":
            continue
        if not value:
            allowed = None      # an empty assignment resets the filter
            continue
        deny = value.startswith("~")
        names = expand(value.lstrip("~").split(), groups)
        if allowed is None:
            if deny:
                raise SystemExit("unit_sandbox.py: only allow lists are emulated")
            allowed = set()
        allowed = allowed - names if deny else allowed | names
    if allowed is None:
        raise SystemExit("unit_sandbox.py: the unit sets no SystemCallFilter=")
    return allowed | set(ALWAYS)


def load_filter(unit):
    import seccomp
    settings = unit_settings(unit)
    values = dict(settings)
    if values.get("SystemCallArchitectures", "native") != "native":
        raise SystemExit("unit_sandbox.py: only SystemCallArchitectures=native is emulated")
    err = values.get("SystemCallErrorNumber")
    default = seccomp.ERRNO(getattr(errno, err)) if err else seccomp.KILL
    allowed = allowed_calls(settings, syscall_groups())
    families = values.get("RestrictAddressFamilies", "").split()
    if families and families[0].startswith("~"):
        raise SystemExit("unit_sandbox.py: only an allow list of address families is emulated")
    # with no_new_privs (CTL_NNP), as NoNewPrivileges=yes; foreign ABIs
    # are refused by libseccomp's default for architectures not added
    f = seccomp.SyscallFilter(defaction=default)
    for call in sorted(allowed):
        if families and call == "socket":
            continue
        try:
            f.add_rule(seccomp.ALLOW, call)
        except (RuntimeError, ValueError, OSError):
            pass    # a call this architecture does not have (arm_fadvise64_64...)
    for fam in families:
        # systemd refuses socket() for other families (with EAFNOSUPPORT;
        # here they get the default action)
        f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, getattr(socket, fam)))
    f.load()
    return len(allowed), families


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split("\n\n")[1])
    need_seccomp()
    n, families = load_filter(sys.argv[1])
    print("unit_sandbox.py: %d system calls allowed, socket() for %s" %
          (n, " ".join(families) or "any family"), file=sys.stderr, flush=True)
    os.execvp(sys.argv[2], sys.argv[2:])


if __name__ == "__main__":
    main()
