"""Where an http tool's secrets may not go: into a message, a log record, or a
request to another origin.

A call's secrets are its auth values, its OAuth2 token, the environment values its
headers, query parameters and auth fields read, and the values of its URL's query
that hold an environment value the URL read. Light at import (no httpx): the
request is encoded without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from urllib.parse import parse_qsl, quote, quote_plus, unquote_plus

REDACTED = "***"
_SHORTEST_REPLACED = 3
"""A secret shorter than this is not replaced inside other text (``"T"`` would turn
``HTTP`` into ``H***T***P``); a query value equal to it still is."""


def url_query_secrets(url: str, url_env: Iterable[object]) -> list[str]:
    """The values of ``url``'s query that came from the environment: those holding
    an environment value the URL template read (``?key={{env.KEY}}``), and those of
    the query of such a value (a whole URL from ``{{env.ENDPOINT}}``)."""
    read = [value for value in url_env if isinstance(value, str) and value]
    if not read or "?" not in url:
        return []
    query = url.partition("?")[2].partition("#")[0]  # even of a URL that will not parse
    found: list[str] = []
    for _, value in parse_qsl(query, keep_blank_values=True):
        if value and any(
            value == env
            or (len(env) >= _SHORTEST_REPLACED and env in value)
            or value in env.partition("?")[2]
            for env in read
        ):
            found.append(value)
    return found


def holds_secret(text: str, secrets: Sequence[str]) -> bool:
    """Whether ``text`` is a secret or has one inside."""
    return any(
        text == secret or (len(secret) >= _SHORTEST_REPLACED and secret in text)
        for secret in secrets
    )


def secret_header_names(
    headers: Sequence[tuple[str, str]], secrets: Sequence[str]
) -> frozenset[bytes]:
    """The lower-cased names of the headers that carry a secret: never sent to
    another origin by a redirect (Authorization is dropped there in any case)."""
    names = {b"authorization"}
    names.update(
        name.lower().encode("ascii")
        for name, value in headers
        if holds_secret(value, secrets)
    )
    return frozenset(names)


def shown_url(url: str, secrets: Sequence[str]) -> str:
    """``url`` with each query value that holds a secret replaced by ``***``; the
    rest of the URL as it was."""
    head, mark, rest = url.partition("?")
    if not mark or not secrets:
        return url
    query, hash_mark, fragment = rest.partition("#")
    fields = []
    for field in query.split("&"):
        name, equals, value = field.partition("=")
        if equals and value and holds_secret(unquote_plus(value), secrets):
            value = REDACTED
        fields.append(name + equals + value)
    return f"{head}?{'&'.join(fields)}{hash_mark}{fragment}"


def redacted(message: str, secrets: Sequence[str]) -> str:
    """``message`` with every secret, as it is and URL-encoded, replaced by ``***``
    (never an empty one, nor one too short to find without mangling the text)."""
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) < _SHORTEST_REPLACED:
            continue
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            message = message.replace(form, REDACTED)
    return message
