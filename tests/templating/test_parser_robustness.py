"""Property: the template parser, given any text, returns a Template or raises
TemplateSyntaxError (with an offset inside the text), and nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import Template, TemplateSyntaxError

FRAGMENTS = [
    "@",
    "@@",
    "@if",
    "@if(",
    "@if (",
    "@elseif(",
    "@else",
    "@elsewhere",
    "@endif",
    "@for(",
    "@for",
    "@endfor",
    "@foreach(",
    "@endforeach",
    "@end",
    "i in range(0, 2)",
    "i in range(",
    "range(a, b)",
    "x in props.l",
    "x in",
    " in ",
    "props.a",
    "env.B",
    "x.key",
    "==",
    "!=",
    ">=",
    "<=",
    ">",
    "<",
    "=",
    "!",
    "(",
    ")",
    "((",
    "))",
    "{",
    "}",
    "{{",
    "}}",
    "{{{",
    "}}}",
    "{!!",
    "!!}",
    "|",
    "'",
    '"',
    "`",
    ".",
    "..",
    ",",
    "-1",
    "2.5",
    "0",
    " ",
    "\n",
    "\t",
    "\r\n",
    "é",
    "\x00",
]

template_texts = st.one_of(
    st.lists(
        st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=3)), max_size=25
    ).map("".join),
    st.text(
        alphabet=st.sampled_from(list("@{}()'\"`|.=<>! \nifelsendorachxp0,")),
        max_size=40,
    ),
    st.text(max_size=40),
)


@settings(max_examples=600, deadline=None)
@given(
    text=template_texts,
    directives=st.booleans(),
    whitespace=st.sampled_from(["compat", "trim"]),
)
def test_parser_raises_only_syntax_errors(
    text: str, directives: bool, whitespace: str
) -> None:
    try:
        template = parse_template(text, directives=directives, whitespace=whitespace)
    except TemplateSyntaxError as error:
        assert 0 <= error.offset <= len(text), (text, error.message, error.offset)
        assert error.message
        return
    assert isinstance(template, Template)
