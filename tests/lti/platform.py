"""A small LMS stand-in: its own RSA keys and JWKS, real signed id_tokens, a token endpoint that
checks the tool's private_key_jwt assertion against the tool's key set as it cached it, AGS line
items/scores (deletable, scope-checked) and an NRPS roster, all served by a real HTTP server in a
thread."""

from __future__ import annotations

import html
import json
import secrets
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINEITEM = AGS_SCOPE + "lineitem"
LINEITEM_READONLY = AGS_SCOPE + "lineitem.readonly"
SCORE = AGS_SCOPE + "score"
MEMBERSHIPS = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"


# The LMS page's side of platform storage: answers lti.capabilities, lti.put_data and
# lti.get_data from its frames, keeping values per sender origin (as the spec asks) and logging
# every message in window.lmsStorageLog so a test can see the storage was really used.
STORAGE_SCRIPT = """<script>
window.lmsStorageLog = [];
const kept = {};
window.addEventListener("message", (event) => {
  const m = event.data;
  if (!m || typeof m !== "object" || typeof m.subject !== "string") return;
  window.lmsStorageLog.push({origin: event.origin, subject: m.subject, key: m.key});
  const reply = {subject: m.subject + ".response", message_id: m.message_id};
  const mine = kept[event.origin] || (kept[event.origin] = {});
  if (m.subject === "lti.capabilities") {
    reply.supported_messages = [
      {subject: "lti.capabilities"}, {subject: "lti.put_data"}, {subject: "lti.get_data"}];
  } else if (m.subject === "lti.put_data") {
    mine[m.key] = m.value; reply.key = m.key; reply.value = m.value;
  } else if (m.subject === "lti.get_data") {
    reply.key = m.key;
    if (m.key in mine) reply.value = mine[m.key];
    else reply.error = {code: "bad_request", message: "nothing stored under this key"};
  } else {
    reply.error = {code: "unsupported_subject", message: "not supported here"};
  }
  event.source.postMessage(reply, event.origin);
});
</script>"""


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Platform:
    """One LMS: issuer = its base URL; records what the tool sent it."""

    def __init__(
        self, client_id: str = "tool-client", deployment_id: str = "dep-1", host: str = "127.0.0.1"
    ) -> None:
        self.key = new_key()
        self.kid = "platform-key-1"
        self.client_id = client_id
        self.deployment_id = deployment_id
        # The tool's key set as this LMS cached it. Like a real LMS, it fetches the set again
        # only when its cache is older than jwks_cache_seconds (never on an unknown kid).
        self.tool_jwks: list[dict[str, Any]] = []
        self.fetch_tool_jwks: Callable[[], list[dict[str, Any]]] | None = None
        self.jwks_fetched_at: float | None = None
        self.jwks_cache_seconds = 86400.0
        self.clock_offset = 0.0  # tests move this LMS's clock instead of sleeping
        # Scopes the launch's AGS claim offers, and the scopes the token endpoint grants.
        self.ags_scopes = [LINEITEM, SCORE]
        self.grantable = {LINEITEM, LINEITEM_READONLY, SCORE, MEMBERSHIPS}
        self.tokens: dict[str, set[str]] = {}  # access token -> its scopes
        self.token_requests: list[set[str]] = []
        self.assertions: list[dict[str, Any]] = []
        self.assertion_kids: list[str] = []
        self.lineitems: list[dict[str, Any]] = []
        self.next_lineitem = 1
        self.scores: list[dict[str, Any]] = []
        self.members: list[dict[str, Any]] = []
        self.fail_scores = 0
        self.fail_status = 503  # what those failed score posts answer
        # What the browser-facing pages launch: the tool's base URL, and the id_token's arguments.
        self.tool_url = ""
        self.browser_launch: dict[str, Any] = {}
        # Platform storage (LTI client-side postMessages): offered to the tool when True.
        self.storage = False
        self.lock = threading.Lock()
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _send(
                self,
                status: int,
                body: Any,
                headers: dict[str, str] | None = None,
                content_type: str = "application/json",
            ) -> None:
                raw = (json.dumps(body) if content_type == "application/json" else body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(raw)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            def _html(self, body: str) -> None:
                page = f"<!doctype html><html><body>{body}</body></html>"
                self._send(200, page, content_type="text/html; charset=utf-8")

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def _scope(self) -> set[str] | None:
                auth = self.headers.get("Authorization", "")
                return platform.tokens.get(auth.removeprefix("Bearer "))

            def do_GET(self) -> None:
                path = urlsplit(self.path)
                if path.path == "/jwks":
                    return self._send(200, {"keys": [platform.public_jwk()]})
                if path.path == "/course":
                    return self._html(platform.course_page())
                if path.path == "/auth":
                    return self._html(platform.auth_page(self.path))
                scope = self._scope()
                if scope is None:
                    return self._send(401, {"error": "no token"})
                if path.path == "/lineitems":
                    if not scope & {LINEITEM, LINEITEM_READONLY}:
                        return self._send(403, {"error": "scope"})
                    tag = parse_qs(path.query).get("tag", [None])[0]
                    found = [i for i in platform.lineitems if tag is None or i["tag"] == tag]
                    return self._send(200, found)
                if path.path.startswith("/lineitems/"):
                    if not scope & {LINEITEM, LINEITEM_READONLY}:
                        return self._send(403, {"error": "scope"})
                    url = f"{platform.url}{path.path}"
                    item = next((i for i in platform.lineitems if i["id"] == url), None)
                    if item is None:
                        return self._send(404, {"error": "no such line item"})
                    return self._send(200, item)
                if path.path == "/memberships":
                    if MEMBERSHIPS not in scope:
                        return self._send(403, {"error": "scope"})
                    page = parse_qs(path.query).get("page", ["1"])[0]
                    half = len(platform.members) // 2
                    if page == "1":
                        link = f'<{platform.url}/memberships?page=2>; rel="next"'
                        return self._send(200, {"members": platform.members[:half]}, {"Link": link})
                    return self._send(200, {"members": platform.members[half:]})
                return self._send(404, {"error": "not found"})

            def do_POST(self) -> None:
                path = urlsplit(self.path).path
                body = self._body()
                if path == "/token":
                    return self._token(parse_qs(body.decode()))
                scope = self._scope()
                if scope is None:
                    return self._send(401, {"error": "no token"})
                if path == "/lineitems":
                    if LINEITEM not in scope:
                        return self._send(403, {"error": "scope"})
                    item = json.loads(body)
                    with platform.lock:
                        item["id"] = f"{platform.url}/lineitems/{platform.next_lineitem}"
                        platform.next_lineitem += 1
                        platform.lineitems.append(item)
                    return self._send(201, item)
                if path.startswith("/lineitems/") and path.endswith("/scores"):
                    if SCORE not in scope:
                        return self._send(403, {"error": "scope"})
                    if self.headers.get("Content-Type") != "application/vnd.ims.lis.v1.score+json":
                        return self._send(415, {"error": "content type"})
                    known = {i["id"] for i in platform.lineitems}
                    if f"{platform.url}{path[: -len('/scores')]}" not in known:
                        return self._send(404, {"error": "no such line item"})
                    with platform.lock:
                        if platform.fail_scores > 0:
                            platform.fail_scores -= 1
                            return self._send(platform.fail_status, {"error": "try later"})
                        platform.scores.append(
                            {"lineitem": path[: -len("/scores")], **json.loads(body)}
                        )
                    return self._send(200, {})
                return self._send(404, {"error": "not found"})

            def _token(self, form: dict[str, list[str]]) -> None:
                assertion = form.get("client_assertion", [""])[0]
                try:
                    kid = jwt.get_unverified_header(assertion)["kid"]
                    jwk = next(k for k in platform.cached_tool_jwks() if k["kid"] == kid)
                    claims = jwt.decode(
                        assertion,
                        jwt.PyJWK(jwk).key,
                        algorithms=["RS256"],
                        audience=f"{platform.url}/token",
                        issuer=platform.client_id,
                    )
                except Exception as exc:  # any failure: the tool is not who it says
                    return self._send(401, {"error": "invalid_client", "detail": str(exc)})
                if form.get("grant_type") != ["client_credentials"]:
                    return self._send(400, {"error": "unsupported_grant_type"})
                asked = set(form.get("scope", [""])[0].split())
                platform.token_requests.append(asked)
                if not asked or asked - platform.grantable:
                    return self._send(400, {"error": "invalid_scope"})
                platform.assertions.append(claims)
                platform.assertion_kids.append(kid)
                token = secrets.token_urlsafe(16)
                platform.tokens[token] = asked
                return self._send(
                    200, {"access_token": token, "token_type": "bearer", "expires_in": 3600}
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Platform:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    @property
    def issuer(self) -> str:
        return self.url

    def cached_tool_jwks(self) -> list[dict[str, Any]]:
        """The tool's keys from this LMS's cache, fetched again only once the cache is old."""
        now = time.time() + self.clock_offset
        with self.lock:
            stale = self.jwks_fetched_at is None or now - self.jwks_fetched_at > (
                self.jwks_cache_seconds
            )
            if self.fetch_tool_jwks is not None and stale:
                self.tool_jwks = self.fetch_tool_jwks()
                self.jwks_fetched_at = now
            return list(self.tool_jwks)

    def delete_lineitem(self, url: str) -> None:
        """A teacher deletes the gradebook column in the LMS."""
        with self.lock:
            self.lineitems = [i for i in self.lineitems if i["id"] != url]

    def add_lineitem(self, **fields: Any) -> str:
        """A gradebook column made on the LMS side (e.g. by deep linking); returns its URL."""
        with self.lock:
            url = f"{self.url}/lineitems/{self.next_lineitem}"
            self.next_lineitem += 1
            self.lineitems.append({"id": url, **fields})
        return url

    def public_jwk(self) -> dict[str, Any]:
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key()))
        return {**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}

    def registration(self) -> dict[str, str]:
        return {
            "issuer": self.issuer,
            "client_id": self.client_id,
            "auth_url": f"{self.url}/auth",
            "token_url": f"{self.url}/token",
            "jwks_url": f"{self.url}/jwks",
            "deployment_id": self.deployment_id,
        }

    def id_token(
        self,
        *,
        nonce: str,
        sub: str,
        roles: list[str],
        claims: dict[str, Any] | None = None,
        key: rsa.RSAPrivateKey | None = None,
        aud: str | list[str] | None = None,
        exp_in: int = 300,
    ) -> str:
        now = int(time.time())
        body: dict[str, Any] = {
            "iss": self.issuer,
            "aud": aud or self.client_id,
            "sub": sub,
            "iat": now,
            "exp": now + exp_in,
            "nonce": nonce,
            "name": f"Person {sub}",
            LTI + "deployment_id": self.deployment_id,
            LTI + "message_type": "LtiResourceLinkRequest",
            LTI + "version": "1.3.0",
            LTI + "roles": roles,
            LTI + "context": {"id": "course-1", "title": "Transformers 101"},
            "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint": {
                "scope": list(self.ags_scopes),
                "lineitems": f"{self.url}/lineitems",
            },
            "https://purl.imsglobal.org/spec/lti-nrps/claim/namesroleservice": {
                "context_memberships_url": f"{self.url}/memberships",
                "service_versions": ["2.0"],
            },
            **(claims or {}),
        }
        return jwt.encode(body, key or self.key, algorithm="RS256", headers={"kid": self.kid})

    def authorize(self, location: str, **token_args: Any) -> tuple[str, dict[str, str]]:
        """The platform's OIDC authorization endpoint: check the request, answer a form post."""
        parts = urlsplit(location)
        assert f"{parts.scheme}://{parts.netloc}{parts.path}" == f"{self.url}/auth"
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        assert query["scope"] == "openid"
        assert query["response_type"] == "id_token"
        assert query["response_mode"] == "form_post"
        assert query["prompt"] == "none"
        assert query["client_id"] == self.client_id
        assert query["login_hint"] == token_args.get("sub", query["login_hint"])
        token = self.id_token(nonce=query["nonce"], **token_args)
        return query["redirect_uri"], {"id_token": token, "state": query["state"]}

    def login_params(self, sub: str, target_link_uri: str) -> dict[str, str]:
        """What the LMS sends to the tool's /lti/login to start the OIDC dance."""
        params = {
            "iss": self.issuer,
            "login_hint": sub,
            "target_link_uri": target_link_uri,
            "lti_message_hint": "hint-42",
            "client_id": self.client_id,
        }
        if self.storage:
            params["lti_storage_target"] = "_parent"
        return params

    def course_page(self) -> str:
        """The LMS's course page: the tool in an iframe, started by OIDC login initiation."""
        params = self.login_params(str(self.browser_launch.get("sub", "")), f"{self.tool_url}/")
        src = html.escape(f"{self.tool_url}/lti/login?{urlencode(params)}")
        return (
            "<h1>Transformers 101 (LMS)</h1>"
            f'<iframe id="tool" title="course tool" src="{src}" width="1280" height="900"'
            ' allow="clipboard-read; clipboard-write"></iframe>'
            + (STORAGE_SCRIPT if self.storage else "")
        )

    def auth_page(self, location: str) -> str:
        """The authorization endpoint as a browser meets it: a form that posts itself."""
        redirect_uri, form = self.authorize(f"{self.url}{location}", **self.browser_launch)
        fields = "".join(
            f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
            for k, v in form.items()
        )
        return (
            f'<form method="post" action="{html.escape(redirect_uri)}">{fields}</form>'
            "<script>document.forms[0].submit()</script>"
        )
