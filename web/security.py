"""Who may change what.

- Bound to a loopback address (the default, 127.0.0.1) the server answers only
  requests addressed to a loopback name (``Host`` header: defeats DNS
  rebinding), and every POST must carry a JSON body type, which a page of
  another site cannot send without CORS permission (no CSRF). No tokens.
- Bound to any other address (``--host 0.0.0.0``) every request that changes
  a table must carry that table's join token (``X-Table-Token`` header); the
  token reaches players as the join URL / QR code on the host screen. Creating,
  importing and deleting tables is for the host computer (a loopback client).
  Reading a table (state, live events, video) needs no token.

>>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0"), is_loopback("[::1]")
(True, True, False, True)
"""

from __future__ import annotations

import hmac
import ipaddress

from flask import request

from web.errors import ForbiddenHost, HostOnly, TokenRequired
from web.store import TableRecord

TOKEN_HEADER = "X-Table-Token"


def is_loopback(host: str | None) -> bool:
    if not host:
        return False
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """``example:8765`` -> ``example``; ``[::1]:8765`` -> ``[::1]``."""
    if host_header.startswith("["):
        return host_header.split("]", 1)[0] + "]"
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def check_host_header(exposed: bool) -> None:
    if exposed:
        return
    name = host_name(request.host or "")
    if not is_loopback(name):
        raise ForbiddenHost(host=name[:80])


def client_is_local() -> bool:
    return is_loopback(request.remote_addr)


def token_matches(record: TableRecord, token: str | None) -> bool:
    return bool(token) and hmac.compare_digest(str(token).encode(), record.token.encode())


def require_table_token(record: TableRecord, exposed: bool) -> None:
    if exposed and not token_matches(record, request.headers.get(TOKEN_HEADER)):
        raise TokenRequired(table=record.id)


def require_host(exposed: bool, what: str, what_ja: str) -> None:
    if exposed and not client_is_local():
        raise HostOnly(what=what, what_ja=what_ja)
