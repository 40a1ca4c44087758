"""The template parser: placeholders as mci-py reads them, errors with offsets."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import (
    Branch,
    Condition,
    For,
    Foreach,
    If,
    NumberLiteral,
    PathRef,
    Placeholder,
    StringLiteral,
    TemplateSyntaxError,
    Text,
)


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


def test_directives_apply_only_where_asked() -> None:
    text = "ok @if(props.a) x @endif"
    assert parse_template(text).nodes == (Text(text),)
    ok, block = parse_template(text, directives=True).nodes
    assert ok == Text("ok ")
    assert block == If(
        (Branch(Condition(PathRef(("props", "a"), 7)), (Text(" x "),), True),), 3
    )


def test_nested_blocks_and_branch_whitespace_flags() -> None:
    text = (
        "@foreach(row in props.rows)@for(i in range(0, props.n))"
        "@if(row.qty >= 2) a @elseif(i == 'x') b @else c @endif"
        "@if(i) d @else e @endif@endfor@endforeach"
    )
    (foreach,) = parse_template(text, directives=True).nodes
    assert isinstance(foreach, Foreach) and foreach.var == "row"
    (for_loop,) = foreach.body
    assert isinstance(for_loop, For)
    assert (for_loop.start, for_loop.end) == (
        NumberLiteral(0),
        PathRef(("props", "n"), 46),
    )
    chain, pair = for_loop.body
    assert isinstance(chain, If) and isinstance(pair, If)
    assert [b.strip for b in chain.branches] == [True, True, True]
    assert chain.branches[0].condition == Condition(
        PathRef(("row", "qty"), 59), ">=", NumberLiteral(2)
    )
    assert chain.branches[1].condition == Condition(
        PathRef(("i",), 83), "==", StringLiteral("x")
    )
    assert [b.strip for b in pair.branches] == [False, True]


def test_trim_mode_drops_lines_holding_only_a_directive() -> None:
    text = "Items:\n  @for(i in range(0, 2))\nItem {{i}}\n  @endfor  \nend"
    nodes = parse_template(text, directives=True, whitespace="trim").nodes
    assert nodes[0] == Text("Items:\n")
    assert isinstance(nodes[1], For) and nodes[1].body[0] == Text("Item ")
    assert nodes[1].body[2] == Text("\n")
    assert nodes[2] == Text("end")
    for branch_strip in (
        b.strip
        for n in parse_template(
            "@if(a)x@endif", directives=True, whitespace="trim"
        ).nodes
        for b in n.branches
    ):
        assert branch_strip is False


@pytest.mark.parametrize(
    "text",
    [
        "a@endif b",
        "@endfor",
        "@else",
        "x@elseif(a)",
        "@if x",
        "@for x",
        "mail@elsewhere.org",
        "{{",
        "@foreachx(y)",
    ],
)
def test_directive_words_that_are_not_directives_stay_text(text: str) -> None:
    assert parse_template(text, directives=True).nodes == (Text(text),)


@pytest.mark.parametrize(
    ("text", "message", "offset"),
    [
        ("ab @if(props.a) x", "'@if' is never closed with '@endif'", 3),
        (
            "@for(i in props.l)x@endfor",
            "malformed '@for': expected '@for(name in range(start, end))'",
            5,
        ),
        (
            "@for(i in range(0, 'a'))x@endfor",
            "'@for' range bounds must be integers or paths",
            19,
        ),
        (
            "@foreach(x of props.l)y@endforeach",
            "malformed '@foreach': expected '@foreach(name in path)'",
            9,
        ),
        ("@if(props.a == )x@endif", "missing operand in condition", 15),
        ("@if('x')y@endif", "a condition without an operator must be a path", 4),
        ("@if(a)x@else y@else z@endif", "'@else' after '@else'", 14),
        ("@if(a)x@else y@elseif(b)z@endif", "'@elseif' after '@else'", 14),
        ("@if(props.a == 'x", "directive header is missing its closing ')'", 3),
    ],
)
def test_directive_syntax_errors(text: str, message: str, offset: int) -> None:
    with pytest.raises(TemplateSyntaxError) as caught:
        parse_template(text, directives=True)
    assert (caught.value.message, caught.value.offset) == (message, offset)


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


def test_json_native_placeholders_are_whole_strings() -> None:
    from mcigen_runtime.templating.lookup import TemplateRuntimeError, native
    from mcigen_runtime.templating.parser import parse_native

    node = parse_native("{!! props.n !!}")
    assert node is not None and node.alternatives == (PathRef(("props", "n"), 4),)
    for text in (
        " {!!props.n!!}",
        "{!!props.n!!} ",
        "a{!!props.n!!}",
        "{!! !!}",
        "{{props.n}}",
    ):
        assert parse_native(text) is None, text
    context = {"props": {"n": [1, {"a": True}], "z": None}}
    assert native(context, "{!! props.n !!}", (("props", "n"),)) == [1, {"a": True}]
    assert native(context, "{!!props.z!!}", (("props", "z"),)) is None
    with pytest.raises(TemplateRuntimeError) as caught:
        native(context, "{!! props.q !!}", (("props", "q"),))
    assert str(caught.value) == (
        "Failed to resolve JSON-native placeholder '{!! props.q !!}': "
        "Path 'props.q' not found in context (missing 'q')"
    )
