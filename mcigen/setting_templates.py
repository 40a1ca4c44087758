"""An MCP server's setting as a template: an MCI schema's settings are template
text (``{{env.TOKEN}}``); a broker config's command words are lowered to templates
already (``${TOKEN}``, their other text never parsed)."""

from __future__ import annotations

from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import Template


def setting_template(value: str | Template) -> Template:
    return value if isinstance(value, Template) else parse_template(value)
