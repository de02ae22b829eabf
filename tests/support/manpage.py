"""manpage.py - reading the words of a roff manual page, for the tests that
hold the manual pages to the programs' --help."""
import re


def deroff(text):
    """The words of a roff page: comments, requests' dots, font changes and
    escaped hyphens and quotes taken out."""
    lines = [line for line in text.splitlines() if not line.startswith('.\\"')]
    text = "\n".join(re.sub(r"^\.[A-Z]{1,2}\s?", "", line) for line in lines)
    text = re.sub(r"\\f[BIRP]", "", text)
    return text.replace("\\-", "-").replace("\\(lq", '"').replace("\\(rq", '"')


def section_raw(src, name):
    """The roff source of the page's section `name` (.SH name), up to the
    next section."""
    m = re.search(r"^\.SH " + re.escape(name) + r"\n(.*?)(?=^\.SH |\Z)", src, re.S | re.M)
    assert m, "no section %s" % name
    return m.group(1)


def section(src, name):
    """The words of the page's section `name`."""
    return deroff(section_raw(src, name))
