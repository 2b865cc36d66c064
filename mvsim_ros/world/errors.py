"""The single error type raised for any problem in a world file, and the one-line form of a message."""

from __future__ import annotations


class WorldFileError(Exception):
    """A world file could not be loaded.

    The message always names the file, the line (when known) and the XML tag, and says what was expected.
    """

    def __init__(self, message: str, file: str = "", line: int | None = None, tag: str | None = None):
        self.file = file
        self.line = line
        self.tag = tag
        self.reason = message
        where = file or "<world>"
        if line is not None:
            where += f":{line}"
        if tag:
            where += f": <{tag}>"
        super().__init__(f"{where}: {message}")


def one_line(text: object) -> str:
    """`text` as one line: every run of whitespace (newlines included) becomes one space."""
    return " ".join(str(text).split())
