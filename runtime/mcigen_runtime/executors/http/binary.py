"""Which http responses are binary, and the content item each becomes.

An image is image content (as mci-py has it), a sound is audio content, and any
other body of a media type that is not text is an embedded resource holding the
body as a base64 blob, named by the response's URL: never text decoded from
bytes that are not text. A body without a media type is text when it is UTF-8.
"""

from __future__ import annotations

import base64

from ...results import (
    AudioContent,
    BlobResourceContents,
    Content,
    EmbeddedResource,
    ImageContent,
)

_TEXT_SUBTYPES = frozenset(
    {
        "json",
        "xml",
        "yaml",
        "x-yaml",
        "toml",
        "javascript",
        "x-javascript",
        "ecmascript",
        "x-www-form-urlencoded",
        "sql",
        "graphql",
        "ndjson",
        "x-ndjson",
        "jsonl",
        "json-seq",
        "x-sh",
        "x-shellscript",
    }
)
"""Subtypes of ``application/`` that are text."""

_TEXT_SUFFIXES = ("+json", "+xml", "+yaml")


def binary_content(content_type: str, body: bytes, url: str) -> Content | None:
    """The content item of a response body of ``content_type`` (lower case,
    parameters and all) fetched from ``url`` (as messages may show it); None when
    the body is text."""
    media_type = content_type.split(";")[0]
    if media_type.startswith("image/"):
        return ImageContent.model_construct(
            type="image", data=_base64(body), mimeType=media_type, annotations=None
        )
    media_type = media_type.strip()
    if not body or _is_text(media_type, "charset=" in content_type):
        return None
    if media_type.startswith("audio/"):
        return AudioContent.model_construct(
            type="audio", data=_base64(body), mimeType=media_type, annotations=None
        )
    if not media_type:
        try:
            body.decode("utf-8")
            return None
        except UnicodeDecodeError:
            media_type = "application/octet-stream"
    blob = BlobResourceContents(uri=url, mimeType=media_type, blob=_base64(body))
    return EmbeddedResource(resource=blob)


def _is_text(media_type: str, has_charset: bool) -> bool:
    kind, _, subtype = media_type.partition("/")
    if kind == "text" or has_charset:
        return True
    return kind == "application" and (
        subtype in _TEXT_SUBTYPES or subtype.endswith(_TEXT_SUFFIXES)
    )


def _base64(body: bytes) -> str:
    return base64.b64encode(body).decode("ascii")
