"""The template parser: placeholders as mci-py reads them, errors with offsets."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from mcigen.runtime.template_ast import (
    PathRef,
    Placeholder,
    StringLiteral,
    TemplateSyntaxError,
    Text,
)
from mcigen.runtime.template_parser import parse_template


def test_placeholders_with_whitespace_and_fallback_chains() -> None:
    template = parse_template("Hi {{ props.user.name | env.USER | 'anon' | `x` }}!")
    assert template.nodes == (
        Text("Hi "),
        Placeholder(
            "props.user.name | env.USER | 'anon' | `x`",
            (
                PathRef(("props", "user", "name"), 6),
                PathRef(("env", "USER"), 24),
                StringLiteral("anon"),
                StringLiteral("x"),
            ),
            5,
        ),
        Text("!"),
    )


@pytest.mark.parametrize(
    "text",
    [
        "{{}}",
        "{{ a}b }}",
        "{x}",
        "}}",
        "{{props.x",
        "{ {props.x}}",
        "{!! props.x !!}",
        "@if(x)",
    ],
)
def test_text_that_is_not_a_placeholder_stays_literal(text: str) -> None:
    assert parse_template(text).nodes == (Text(text),)


def test_a_path_that_can_never_resolve_is_rejected() -> None:
    # mci-py's regex reads "{{{props.k}}" as the path "{props.k", which fails on every call.
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template("{{{props.k}}")
    assert caught.value.offset == 2


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("ab {{ }}", "empty alternative in placeholder", 6),
        ("{{props.a | }}", "empty alternative in placeholder", 12),
        ("{{props..a}}", "invalid path 'props..a' in placeholder", 8),
        ("{{props.a b}}", "invalid path 'props.a b' in placeholder", 9),
        ("x{{'open}}", "unterminated string literal 'open", 3),
        ("{{ `a' }}", "unterminated string literal `a'", 3),
    ],
)
def test_syntax_errors_point_into_the_template(
    text: str, message: str, offset: int
) -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template(text)
    assert (caught.value.message, caught.value.offset) == (message, offset)


@pytest.mark.parametrize(
    "directive", ["@if(props.a)", "@for(i in range(0, 2))", "@foreach(x in props.l)"]
)
def test_directives_are_reported_where_they_apply(directive: str) -> None:
    text = f"ok {directive} x @endif"
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template(text, directives=True)
    assert caught.value.offset == 3
    assert parse_template(text).nodes == (Text(text),)


_MCI_PY_PLACEHOLDER = re.compile(r"\{\{([^}]+)\}\}")
_SAFE_TEXT = st.text(alphabet=st.sampled_from(list("ab {}.|'x\n")), max_size=30)


@given(_SAFE_TEXT)
def test_placeholder_spans_agree_with_mci_py_regex(text: str) -> None:
    """Where our parser accepts a text, it finds exactly the placeholders mci-py's regex finds."""
    try:
        template = parse_template(text)
    except TemplateSyntaxError:
        return
    ours = [n.source for n in template.nodes if isinstance(n, Placeholder)]
    assert ours == [m.group(1).strip() for m in _MCI_PY_PLACEHOLDER.finditer(text)]
    rebuilt = "".join(n.value if isinstance(n, Text) else "" for n in template.nodes)
    assert rebuilt == _MCI_PY_PLACEHOLDER.sub("", text)
