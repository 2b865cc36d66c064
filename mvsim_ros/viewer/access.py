"""Who may open the viewer's WebSocket: the page's own origin, origins the user allowed, and an optional token.

A browser sends an ``Origin`` header on every WebSocket handshake, naming the page that opened it; any page the
user visits could otherwise drive the robots through ``ws://127.0.0.1:8090/ws``. The rules, in order:

1. With a token (``viewer_token`` / ``mvsim_view --token``), the handshake's ``?token=`` must carry it, whoever
   connects.
2. No ``Origin`` header: not a browser (a script, a test client): accepted.
3. ``Origin`` one of the allowed origins (``viewer_allowed_origins`` / ``--allow-origin``): accepted.
4. ``Origin`` the same as the address the page was served from (the ``Host`` header, same port), and that host an
   IP address, ``localhost`` or the name the server was bound to: accepted. Any other host name could be a DNS
   name an attacker points at 127.0.0.1 (DNS rebinding), so it must be allowed explicitly.
5. Anything else, ``Origin: null`` (sandboxed frames, local files) included: refused (HTTP 403).

Origins compare as ``scheme://host[:port]``, lower-case, the scheme's default port left out (as browsers write
them).
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import urllib.parse
from typing import Iterable

#: Query parameter of the page's address and of the WebSocket URL that carries the token.
TOKEN_QUERY = "token"
#: Longest origin accepted in a list of allowed origins [characters].
MAX_ORIGIN = 255
_DEFAULT_PORTS = {"http": 80, "https": 443}


def new_token() -> str:
    """A fresh random token for one run (22 URL-safe characters, 128 bits)."""
    return secrets.token_urlsafe(16)


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


def _url_host(host: str) -> str:
    """`host` as written in a URL: an IPv6 address in brackets."""
    return f"[{host}]" if ":" in host else host


def normalize_origin(text: str) -> str:
    """`text` (e.g. ``HTTP://Robots.Lan:8090/``) as a browser writes it in an Origin header
    (``http://robots.lan:8090``). Raises ValueError saying what is wrong with it."""
    if not isinstance(text, str):
        raise ValueError(f"an origin must be a string, got {text!r}")
    origin = text.strip()
    if origin.lower() == "null":
        raise ValueError("'null' is the origin of sandboxed frames and local files: any page can send it")
    if not origin or len(origin) > MAX_ORIGIN or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in origin):
        raise ValueError(f"{text!r} is not an origin (scheme://host[:port], at most {MAX_ORIGIN} characters)")
    try:
        parts = urllib.parse.urlsplit(origin)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{text!r} is not an origin: {exc}") from None
    scheme, host = parts.scheme.lower(), parts.hostname
    if scheme not in _DEFAULT_PORTS:
        raise ValueError(f"{text!r}: the scheme must be http or https")
    if not host or parts.username is not None or parts.password is not None:
        raise ValueError(f"{text!r} is not an origin: it names no host (scheme://host[:port])")
    if parts.path not in ("", "/") or parts.query or parts.fragment or origin.endswith(("?", "#")):
        raise ValueError(f"{text!r} is not an origin: only scheme://host[:port], without a path")
    if port == 0:
        raise ValueError(f"{text!r}: port 0 is not a port a page can be served from")
    suffix = "" if port is None or port == _DEFAULT_PORTS[scheme] else f":{port}"
    return f"{scheme}://{_url_host(host)}{suffix}"


def normalize_origins(origins: Iterable[str]) -> list[str]:
    """Every entry of `origins` normalised (normalize_origin), duplicates dropped, in order; ValueError if one is
    not an origin."""
    out: list[str] = []
    for origin in origins:
        normal = normalize_origin(origin)
        if normal not in out:
            out.append(normal)
    return out


def _host_and_port(host_header: str, scheme: str) -> tuple[str, int] | None:
    """(host, port) of a Host header, the port defaulting to that of `scheme`; None if it is not host[:port]."""
    try:
        parts = urllib.parse.urlsplit("//" + host_header)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or parts.path or parts.query or parts.username is not None:
        return None
    return host, _DEFAULT_PORTS[scheme] if port is None else port


class AccessPolicy:
    """Decides whether a WebSocket handshake may open (see the module docstring).

    bound_host: the address or name the server listens on; allowed_origins: extra origins to accept (each
    checked by normalize_origin: ValueError if one is not an origin); token: the run's token, or None for none.
    """

    def __init__(self, bound_host: str, allowed_origins: Iterable[str] = (), token: str | None = None):
        self.bound_host = bound_host.strip().strip("[]").lower()
        self.allowed_origins = frozenset(normalize_origins(allowed_origins))
        if token is not None and not token:
            raise ValueError("the viewer token must not be empty")
        self.token = token

    def refusal(self, origin: str | None, host_header: str | None, token: str | None = None) -> str | None:
        """Why a handshake with these Origin and Host headers and this ``?token=`` value is refused, or None when
        it may open."""
        if self.token is not None and not (token and hmac.compare_digest(token.encode(), self.token.encode())):
            return "missing or wrong token"
        if origin is None:
            return None
        try:
            normal = normalize_origin(origin)
        except ValueError:
            return "not an origin a page of this viewer sends" if origin.strip().lower() != "null" else \
                "origin 'null' (a sandboxed frame or a local file)"
        if normal in self.allowed_origins:
            return None
        return self._same_origin_refusal(normal, host_header)

    def _same_origin_refusal(self, origin: str, host_header: str | None) -> str | None:
        parts = urllib.parse.urlsplit(origin)
        scheme, host = parts.scheme, parts.hostname
        port = parts.port or _DEFAULT_PORTS[scheme]
        served = _host_and_port(host_header, scheme) if host_header else None
        if served is None or served != (host, port):
            return "not the origin of this viewer's page"
        if _is_ip(host) or host == "localhost" or host == self.bound_host:
            return None
        return f"host name {host!r} is not this viewer's address (allow the origin to accept it)"


__all__ = ["AccessPolicy", "TOKEN_QUERY", "new_token", "normalize_origin", "normalize_origins"]
