"""Exceptions raised to the caller of a generated tool function."""

from __future__ import annotations

from .printable import printable, quoted


class ToolInputError(ValueError):
    """The input given to a tool does not match its inputSchema.

    ``tool`` is the tool's MCI name, ``field`` the first offending property (as the
    schema spells it, empty for the input as a whole) and ``problems`` every
    (field, message) pair found.
    """

    def __init__(self, tool: str, problems: list[tuple[str, str]]) -> None:
        self.tool = tool
        self.problems = problems
        self.field = problems[0][0] if problems else ""
        details = "; ".join(
            f"{field}: {message}" if field else message for field, message in problems
        )
        # shown on a terminal by the package's command line: names from the schema and
        # values in the validator's messages may hold line breaks or terminal escapes
        super().__init__(printable(f"invalid input for tool {quoted(tool)}: {details}"))
