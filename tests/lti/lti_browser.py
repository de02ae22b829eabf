"""A browser for the LTI tests: a cookie jar for the tool, no redirects
followed by itself, and the whole launch flow (login initiation, the
platform's auto-posting form, the post back)."""
import re
import socket
import urllib.error
import urllib.parse
import urllib.request
from html import unescape


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


class Browser:
    """Follows nothing by itself; keeps the tool's cookies by name as a
    browser would for one host (Max-Age=0 removes one), with their
    attributes as last set (`attrs`)."""

    def __init__(self, server_url, context=None):
        self.server = server_url
        self.jar = {}
        self.attrs = {}
        handlers = [NoRedirect]
        if context is not None:
            handlers.append(urllib.request.HTTPSHandler(context=context))
        self.opener = urllib.request.build_opener(*handlers)

    def go(self, method, url, data=None, headers=None):
        h = dict(headers or {})
        if self.jar and url.startswith(self.server):
            h["Cookie"] = "; ".join("%s=%s" % kv for kv in self.jar.items())
        body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
        if isinstance(data, dict):
            h["Content-Type"] = "application/x-www-form-urlencoded"
        req = urllib.request.Request(url, data=body, method=method, headers=h)
        try:
            r = self.opener.open(req, timeout=30)
        except urllib.error.HTTPError as e:
            r = e
        text = r.read().decode("utf-8", "replace")
        if url.startswith(self.server):
            for c in r.headers.get_all("Set-Cookie") or []:
                name, _, rest = c.partition("=")
                value = rest.split(";")[0]
                if "Max-Age=0" in c:
                    self.jar.pop(name, None)
                else:
                    self.jar[name] = value
                    self.attrs[name] = c
        return r.status, r.headers, text

    def launch(self, plat, target=None, **claims):
        """The whole flow: the platform's login initiation, our 302, the
        platform's auth answer (the auto-posting form), the post to us."""
        plat.pending_target = target or self.server + "/lti/launch"
        plat.pending_claims = claims
        st, h, _ = self.go("GET", self.server + "/lti/login?" + urllib.parse.urlencode({
            "iss": plat.issuer, "login_hint": "hint-1", "client_id": plat.client_id,
            "target_link_uri": plat.pending_target, "lti_message_hint": "m+1/2"}))
        assert st == 302, (st, _)
        # over TLS the state cookie is named __Host-
        self.login_cookie = self.jar.get("butterfly_lti_state",
                                         self.jar.get("__Host-butterfly_lti_state"))
        st, _, form = self.go("GET", h["Location"])
        assert st == 200, (st, form)
        action = unescape(re.search(r'action="([^"]*)"', form).group(1))
        fields = dict((m.group(1), unescape(m.group(2))) for m in
                      re.finditer(r'name=(\w+) value="([^"]*)"', form))
        return self.go("POST", action, fields)
