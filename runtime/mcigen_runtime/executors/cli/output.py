"""What is kept of a command's stdout or stderr: at most the last ``limit`` bytes."""

from __future__ import annotations


class Tail:
    """The last ``limit`` bytes of a stream, and how many bytes came before them."""

    __slots__ = ("data", "limit", "dropped")

    def __init__(self, limit: int) -> None:
        self.data = bytearray()
        self.limit = limit
        self.dropped = 0

    def add(self, chunk: bytes) -> bool:
        """Keep ``chunk``; True when the stream has now passed the limit."""
        self.data += chunk
        over = len(self.data) - self.limit
        if over <= 0:
            return False
        del self.data[:over]
        self.dropped += over
        return True

    def text(self) -> str:
        """What ``subprocess.run(..., text=True)`` gives: UTF-8, universal newlines.
        A cut stream may start or end inside a character: those bytes are dropped
        or replaced; an uncut one that is not UTF-8 raises ``UnicodeDecodeError``."""
        if not self.data:  # most commands write nothing to stderr
            return ""
        data = bytes(self.data)
        if self.dropped:
            start = 0
            while start < min(3, len(data)) and data[start] & 0xC0 == 0x80:
                start += 1  # a continuation byte of a character cut off
            text = data[start:].decode("utf-8", errors="replace")
        else:
            text = data.decode("utf-8")
        return text.replace("\r\n", "\n").replace("\r", "\n")
