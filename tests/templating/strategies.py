"""Hypothesis strategies: well-formed templates, with matching contexts, restricted to
the constructs on which mci-py 1.2 is correct, so that it can serve as the oracle.

What is left out, and why (each is a DEFECTS case in ``cases.py``):
- blocks nested in blocks of the same kind, an ``@if`` anywhere inside an ``@if``, and
  a ``@foreach`` inside a ``@for`` (mci-py's regexes cannot nest them);
- loop variables anywhere but as ``{{i}}``, ``{{x}}``, ``{{x.field}}`` of a flat
  object item, ``{{x}}``/``{{x.key}}`` of a dict member (mci-py substitutes loop
  values as text; conditions and fallback chains never see them);
- loop values containing ``{``, ``}``, ``@`` or ``\\`` (mci-py re-parses them and hands
  them to ``re.sub`` as replacement templates), or empty or with surrounding
  whitespace (mci-py's ``@if`` stripping reaches into them);
- ``@else`` after ``@elseif`` (mci-py drops it);
- quoted condition literals holding ``)``, quotes or operator characters;
- more than one kind of failure in one template (mci-py reports loop errors before
  condition errors before placeholder errors, not in document order): each example
  picks one ``failure`` kind, everything else always succeeds;
- a ``@foreach`` whose path can fail anywhere but at the top level (mci-py expands
  loops inside ``@if`` branches that are never taken).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

# -- values ------------------------------------------------------------------------

# Loop values: no braces, "@" or backslash; never empty, no surrounding whitespace.
_LOOP_CHARS = "abcxyz019 .,:;-_!?()\"'=<>|#$%&*+/~^éü東\n"
# Top-level prop values are substituted last by mci-py and never re-read: anything.
_PROP_CHARS = _LOOP_CHARS + "{}@\\\t"
# Quoted condition literals: nothing mci-py could mistake for syntax.
_LITERAL_CHARS = "abcxyz019 .-_éü"
_LITERAL_FORBIDDEN = set("\"'()=!<>")

loop_strings = st.text(_LOOP_CHARS, min_size=1, max_size=8).filter(
    lambda s: s == s.strip() and s != ""
)
prop_strings = st.text(_PROP_CHARS, max_size=10)
# Whitespace around a prop value must survive @if stripping: offer plenty of it.
edged_prop_strings = st.tuples(
    st.sampled_from(["", " ", "\n", "  ", "\t "]),
    st.text(_PROP_CHARS, max_size=6),
    st.sampled_from(["", " ", "\n", " \n"]),
).map("".join)
loop_scalars = st.one_of(
    loop_strings,
    st.integers(-50, 50),
    st.sampled_from([True, False, None, 0.5, -2.25, 3.0, 1e-05]),
)
dict_keys = st.text("abkxyz_ é", min_size=1, max_size=5).filter(
    lambda s: s == s.strip()
)

NUMERIC_PATHS = ("props.n1", "props.n2", "props.f1", "props.b1")
ALL_PATHS = (
    "props.s1",
    "props.s2",
    "props.n1",
    "props.n2",
    "props.f1",
    "props.b1",
    "props.z",
    "props.l0",
    "props.l1",
    "props.o1",
    "props.nested.k",
    "props.nope",
    "props.s1.deeper",
    "input.s2",
    "env.E1",
    "env.NOPE",
)
SAFE_PLACEHOLDER_PATHS = (
    "props.s1",
    "props.s2",
    "props.n1",
    "props.f1",
    "props.b1",
    "props.z",
    "props.l1",
    "props.d1",
    "props.o1",
    "props.nested.k",
    "input.s1",
    "env.E1",
    "env.E2",
)
FAILING_PATHS = ("props.nope", "props.s1.deeper", "env.NOPE", "props.nested.nope")
# Collections a @foreach may iterate, with what their loop variable is.
COLLECTIONS = {
    "props.l1": "scalar",
    "props.l0": "scalar",
    "input.l1": "scalar",
    "props.d1": "record",
    "props.o1": "entry",
    "env": "entry",
}
NOT_COLLECTIONS = ("props.nope", "props.s1", "props.n1", "props.z", "props.nested.k.x")
RECORD_FIELDS = ("a", "b")
FAILURES = ("none", "placeholders", "conditions", "foreach")


@st.composite
def contexts(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    """``props`` and ``env`` with the shape every generated template expects."""
    props: dict[str, Any] = {
        "s1": draw(st.one_of(prop_strings, edged_prop_strings)),
        "s2": draw(st.one_of(edged_prop_strings, loop_strings)),
        "n1": draw(st.integers(-20, 20)),
        "n2": draw(st.integers(-3, 3)),
        "f1": draw(st.sampled_from([0.0, 0.5, -1.5, 2.0, 10.25, 3.0])),
        "b1": draw(st.booleans()),
        "z": None,
        "l0": [],
        "l1": draw(st.lists(loop_scalars, min_size=1, max_size=3)),
        "d1": draw(
            st.lists(
                st.fixed_dictionaries({f: loop_scalars for f in RECORD_FIELDS}),
                min_size=1,
                max_size=3,
            )
        ),
        "o1": draw(st.dictionaries(dict_keys, loop_scalars, min_size=1, max_size=3)),
        "nested": {"k": draw(loop_scalars)},
    }
    env = {"E1": draw(loop_strings), "E2": draw(loop_strings)}
    return props, env


# -- templates ---------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Where a node is being generated."""

    failure: str
    in_if: bool = False
    in_for: bool = False
    in_foreach: bool = False
    top: bool = True
    bound: tuple[tuple[str, str], ...] = ()
    """Loop variables in scope, with their kind: for, scalar, record, entry."""
    literals: tuple[str, ...] = field(default=())


_TEXT_CHARS = "abc xyz.,:;-()\"'=<>|#!?\\\n\t é"
texts = st.one_of(
    st.sampled_from(["", " ", "\n", "\n\n", "  \n", " \n ", "\t", "x", " y "]),
    st.text(_TEXT_CHARS, max_size=8),
)


def _spaced(content: str, draw: st.DrawFn) -> str:
    left, right = draw(st.sampled_from([("", ""), (" ", " "), ("", " "), ("  ", "")]))
    return "{{" + left + content + right + "}}"


@st.composite
def placeholders(draw: st.DrawFn, scope: Scope, loop_var: bool = False) -> str:
    """A placeholder; with ``loop_var`` one of the innermost loop's variable."""
    choices = ["path", "chain"]
    if scope.bound:
        choices += ["loop", "loop"]
    if loop_var:
        choices = ["loop"]
    if scope.failure == "placeholders":
        choices += ["failing", "failing"]
    kind = draw(st.sampled_from(choices))
    if kind == "loop":
        var, role = scope.bound[-1] if loop_var else draw(st.sampled_from(scope.bound))
        if role == "record":
            content = f"{var}.{draw(st.sampled_from(RECORD_FIELDS))}"
        elif role == "entry":
            content = draw(st.sampled_from([var, f"{var}.key"]))
        else:
            content = var
    elif kind == "path":
        content = draw(
            st.one_of(
                st.sampled_from(SAFE_PLACEHOLDER_PATHS),
                st.sampled_from(["props.s1", "props.s2", "input.s2"]),
            )
        )
    elif kind == "failing":
        content = " | ".join(
            draw(st.lists(st.sampled_from(FAILING_PATHS), min_size=1, max_size=2))
        )
    else:
        alternatives = draw(
            st.lists(st.sampled_from(FAILING_PATHS), min_size=1, max_size=2)
        )
        last = draw(
            st.one_of(
                st.sampled_from(SAFE_PLACEHOLDER_PATHS),
                st.text(_LITERAL_CHARS, max_size=6).map(lambda s: f"'{s}'"),
                st.text(_LITERAL_CHARS, max_size=6).map(lambda s: f"`{s}`"),
                st.sampled_from(["' x '", "`  `", "' '"]),
            )
        )
        content = " | ".join([*alternatives, last])
    return _spaced(content, draw)


@st.composite
def conditions(draw: st.DrawFn, scope: Scope) -> str:
    paths = st.one_of(st.sampled_from(ALL_PATHS), st.sampled_from(FAILING_PATHS))
    if draw(st.booleans()):
        return draw(paths)
    ordering_allowed = scope.failure == "conditions"
    op = draw(st.sampled_from(["==", "!=", ">", "<", ">=", "<="]))
    ordering = op not in ("==", "!=")
    if ordering and not ordering_allowed:
        left = draw(st.sampled_from(NUMERIC_PATHS))
        right = draw(
            st.one_of(
                st.integers(-20, 20).map(str),
                st.sampled_from(["0.5", "-1.5", "2.0", "10.25"]),
                st.sampled_from(NUMERIC_PATHS),
            )
        )
    else:
        left = draw(paths)
        quote = draw(st.sampled_from(['"', "'"]))
        right = draw(
            st.one_of(
                st.sampled_from(scope.literals).map(lambda s: f"{quote}{s}{quote}"),
                st.integers(-20, 20).map(str),
                st.sampled_from(["0.5", "-1.5", "2.0", "10.25"]),
                paths,
            )
        )
    spacing = draw(st.sampled_from([" ", "", "  "]))
    return f"{left}{spacing}{op}{spacing}{right}"


@st.composite
def sequences(
    draw: st.DrawFn, scope: Scope, max_items: int, min_items: int = 0
) -> list[str]:
    """A run of template pieces; each is text, a placeholder or a whole block."""
    kinds = ["text", "text", "placeholder", "placeholder"]
    blocks = []
    if not scope.in_for:
        blocks.append("for")
        if not scope.in_foreach:
            blocks.append("foreach")
    if not scope.in_if:
        blocks.append("if")
    kinds += blocks * (2 if scope.top else 1)
    pieces: list[str] = []
    for _ in range(draw(st.integers(min_items, max_items))):
        kind = draw(st.sampled_from(kinds))
        if kind == "text":
            pieces.append(draw(texts))
        elif kind == "placeholder":
            pieces.append(draw(placeholders(scope)))
        elif kind == "for":
            pieces.extend(draw(for_blocks(scope)))
        elif kind == "foreach":
            pieces.extend(draw(foreach_blocks(scope)))
        else:
            pieces.extend(draw(if_blocks(scope)))
    return pieces


def _inner(scope: Scope, **changes: Any) -> Scope:
    fields: dict[str, Any] = {
        "failure": scope.failure,
        "in_if": scope.in_if,
        "in_for": scope.in_for,
        "in_foreach": scope.in_foreach,
        "top": False,
        "bound": scope.bound,
        "literals": scope.literals,
    }
    fields.update(changes)
    return Scope(**fields)


@st.composite
def _using_var(draw: st.DrawFn, body: list[str], scope: Scope) -> list[str]:
    """Most loop bodies print their variable: put a placeholder of it at the top
    level of the body (before, between or after its blocks)."""
    if draw(st.integers(0, 4)) == 0:
        return body
    depth, top_level = 0, [0]
    for index, piece in enumerate(body):
        if piece.startswith(("@for", "@if")):
            depth += 1
        elif piece.startswith("@end"):
            depth -= 1
        if depth == 0:
            top_level.append(index + 1)
    at = draw(st.sampled_from(top_level))
    return [*body[:at], draw(placeholders(scope, loop_var=True)), *body[at:]]


@st.composite
def for_blocks(draw: st.DrawFn, scope: Scope) -> list[str]:
    var = draw(st.sampled_from(["i", "j"]))
    start = draw(st.integers(0, 2))
    end = start + draw(st.sampled_from([2, 1, 3, 0]))
    inner = draw(st.sampled_from(["", " "]))
    header = draw(
        st.sampled_from(
            [
                f"@for({var} in range({start}, {end}))",
                f"@for({var} in range({start},{end}))",
                f"@for( {var} in range( {start} , {end} ) )",
            ]
        )
    )
    inner_scope = _inner(scope, in_for=True, bound=(*scope.bound, (var, "for")))
    body = draw(sequences(inner_scope, max_items=3))
    return [header + inner, *draw(_using_var(body, inner_scope)), "@endfor"]


@st.composite
def foreach_blocks(draw: st.DrawFn, scope: Scope) -> list[str]:
    var = draw(st.sampled_from(["x", "item"]))
    paths = list(COLLECTIONS)
    if scope.failure == "foreach" and scope.top:
        paths += list(NOT_COLLECTIONS)
    path = draw(st.sampled_from(paths))
    role = COLLECTIONS.get(path, "scalar")
    header = draw(
        st.sampled_from([f"@foreach({var} in {path})", f"@foreach( {var} in {path} )"])
    )
    inner_scope = _inner(scope, in_foreach=True, bound=(*scope.bound, (var, role)))
    body = draw(sequences(inner_scope, max_items=3))
    return [header, *draw(_using_var(body, inner_scope)), "@endforeach"]


@st.composite
def if_blocks(draw: st.DrawFn, scope: Scope) -> list[str]:
    inner = _inner(scope, in_if=True)
    pieces = [f"@if({draw(conditions(scope))})"]
    pieces += draw(sequences(inner, max_items=3))
    elseifs = draw(st.integers(0, 2))
    for _ in range(elseifs):
        pieces.append(f"@elseif({draw(conditions(scope))})")
        pieces += draw(sequences(inner, max_items=3))
    if elseifs == 0 and draw(st.booleans()):
        pieces.append("@else")
        pieces += draw(sequences(inner, max_items=3))
    pieces.append("@endif")
    return pieces


_ENDS_WITH_KEYWORD = ("@else", "@endfor", "@endforeach", "@endif")
_WORD = re.compile(r"\w")


def join(pieces: list[str]) -> str:
    """The template text; a word character right after ``@else`` or a closer would
    change the directive (``@elsewhere``, ``@endfor`` + ``each``), so a space goes
    between them."""
    out: list[str] = []
    previous = ""
    for piece in pieces:
        if previous in _ENDS_WITH_KEYWORD and _WORD.match(piece):
            out.append(" ")
        out.append(piece)
        if piece:
            previous = piece
    return "".join(out)


def _safe_literal(value: Any) -> str | None:
    text = str(value)
    if not text or len(text) > 12 or _LITERAL_FORBIDDEN & set(text):
        return None
    if not set(text) <= set(_LITERAL_CHARS):
        return None
    return text


@st.composite
def template_cases(
    draw: st.DrawFn,
) -> tuple[str, dict[str, Any], dict[str, str], str]:
    """(template, props, env, failure): ``failure`` names the one kind of error the
    example may produce (``none``, ``placeholders``, ``conditions``, ``foreach``)."""
    props, env = draw(contexts())
    failure = draw(st.sampled_from(FAILURES))
    # A path that does not resolve compares as its own text: offer those texts.
    literals = ["abc", "", "x y", "True", "None", "5", *FAILING_PATHS]
    for value in (props["s1"], props["s2"], env["E1"], props["nested"]["k"]):
        literal = _safe_literal(value)
        if literal is not None:
            literals.append(literal)
    scope = Scope(failure=failure, literals=tuple(literals))
    pieces = draw(sequences(scope, max_items=6, min_items=1))
    return join(pieces), props, env, failure
