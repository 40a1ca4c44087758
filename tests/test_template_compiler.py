"""The two back ends over one AST agree: compiled Python gives exactly what the
template interpreter of the tests (``templating/interpreter.py``) gives, for generated templates in both whitespace modes.
"""

from __future__ import annotations

import re
import types
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcigen_runtime.templating import lookup
from mcigen_runtime.templating.compiler import compile_text
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.parser import parse_template

from .templating.interpreter import render

PROPS = {
    "n": 3,
    "f": 0.5,
    "s": " padded ",
    "flag": False,
    "empty": [],
    "items": ["x", " y ", 3],
    "rows": [{"name": "a", "qty": 1}, {"name": "b", "qty": 5}],
    "map": {"k1": "v1", "k2": {"deep": True}},
}
ENV = {"HOME_DIR": "/home/x", "BLANK": ""}


def _function(
    text: str, whitespace: str, present: frozenset[str], inline: bool = False
) -> Any:
    template = parse_template(text, directives=True, whitespace=whitespace)
    compiled = compile_text(template, present, inline_members=inline)
    body = "\n".join(f"    {line}" for line in compiled.statements) or "    pass"
    source = (
        "def render_compiled(props, env):\n"
        '    context = {"props": props, "env": env, "input": props}\n'
        f"{body}\n"
        f"    return {compiled.expression}\n"
    )
    namespace = {f"_{name}": getattr(lookup, name) for name in compiled.helpers}
    exec(compile(source, "<compiled template>", "exec"), namespace)
    return namespace["render_compiled"]


def _outcome(call: Any) -> tuple[str, str]:
    try:
        return ("text", call())
    except TemplateRuntimeError as error:
        return ("error", str(error))


_PATHS = [
    "props.n",
    "props.f",
    "props.s",
    "props.flag",
    "props.items",
    "props.map",
    "props.missing",
    "input.n",
    "env.HOME_DIR",
    "env.BLANK",
    "env.NOPE",
    "props.map.k1",
]
_TEXT = st.text(alphabet=st.sampled_from(list("ab \n\t-:")), max_size=6)


def _placeholder(loop_vars: tuple[str, ...]) -> st.SearchStrategy[str]:
    paths = _PATHS + [
        *loop_vars,
        *(f"{v}.key" for v in loop_vars),
        *(f"{v}.name" for v in loop_vars),
    ]
    alternative = st.one_of(
        st.sampled_from(paths), st.sampled_from(["'lit'", "`b t`", "' '"])
    )
    chain = st.lists(alternative, min_size=1, max_size=3)
    return chain.map(lambda alts: "{{ " + " | ".join(alts) + " }}")


def _condition(loop_vars: tuple[str, ...]) -> st.SearchStrategy[str]:
    operand = st.sampled_from(
        _PATHS + list(loop_vars) + ['"x"', "'v1'", "2", "0.5", "-1"]
    )
    compare = st.tuples(
        operand, st.sampled_from(["==", "!=", ">", "<", ">=", "<="]), operand
    )
    return st.one_of(st.sampled_from(_PATHS + list(loop_vars)), compare.map(" ".join))


def _template(depth: int, loop_vars: tuple[str, ...]) -> st.SearchStrategy[str]:
    leaf = st.one_of(_TEXT, _placeholder(loop_vars))
    if depth == 0:
        return st.lists(leaf, max_size=4).map("".join)
    var = f"v{depth}"
    inner = _template(depth - 1, (*loop_vars, var))
    same = _template(depth - 1, loop_vars)
    for_loop = st.tuples(st.integers(0, 2), st.integers(0, 3), inner).map(
        lambda t: f"@for({var} in range({t[0]}, {t[1]})){t[2]}@endfor"
    )
    foreach = st.tuples(
        st.sampled_from(["props.items", "props.rows", "props.map", "props.empty"]),
        inner,
    ).map(lambda t: f"@foreach({var} in {t[0]}){t[1]}@endforeach")
    branches = st.lists(st.tuples(_condition(loop_vars), same), min_size=1, max_size=3)
    if_block = st.tuples(branches, st.one_of(st.none(), same), _TEXT).map(
        lambda t: "".join(
            ("@if(" if i == 0 else "@elseif(") + c + ")" + body
            for i, (c, body) in enumerate(t[0])
        )
        + ("" if t[1] is None else "@else" + t[2] + t[1])
        + "@endif"
    )
    block = st.one_of(for_loop, foreach, if_block)
    piece = st.one_of(leaf, block, st.tuples(_TEXT, block, st.just("\n")).map("".join))
    return st.lists(piece, max_size=4).map("".join)


@settings(max_examples=400, deadline=None)
@given(
    _template(3, ()), st.sampled_from(["compat", "trim"]), st.booleans(), st.booleans()
)
def test_compiled_code_equals_the_interpreter(
    text: str, whitespace: str, direct: bool, inline: bool
) -> None:
    present = frozenset(PROPS) if direct else frozenset()
    template = parse_template(text, directives=True, whitespace=whitespace)
    context = {"props": PROPS, "env": ENV, "input": PROPS}
    compiled = _function(text, whitespace, present, inline)
    assert _outcome(lambda: compiled(PROPS, ENV)) == _outcome(
        lambda: render(template, context)
    )


def test_loop_variables_are_scoped_and_restored() -> None:
    text = "@for(i in range(0, 2))@for(i in range(5, 7)){{i}}@endfor{{i}};@endfor{{i | 'out'}}"
    assert (
        render(parse_template(text, directives=True), {"props": {}, "env": {}})
        == "560;561;out"
    )
    assert _function(text, "compat", frozenset())({}, {}) == "560;561;out"


_ADDRESS = re.compile(r" object at 0x[0-9a-f]+")
"""Left out of test ids, which must not change between runs."""


@pytest.mark.parametrize(
    "value",
    [
        {"id": 1, "key": "k"},
        {"other": 1},
        [1, 2],
        7,
        None,
        lookup.Entry("name", {"id": 2}),
        lookup.Entry("name", 3),
        lookup.Entry("name", {"key": "inner"}),
        {"id": lookup.Entry("e", "wrapped")},
        types.MappingProxyType({"id": "proxy"}),
    ],
    ids=lambda value: _ADDRESS.sub("", repr(value)),
)
@pytest.mark.parametrize("key", ["id", "key", "value", "missing"])
def test_member_reads_a_loop_variable_as_the_walk_does(value: Any, key: str) -> None:
    walked = lookup._walk({"item": value}, ("item", key))
    assert lookup.member(value, key) is walked or lookup.member(value, key) == walked


@given(
    value=st.one_of(
        st.integers(-3, 3),
        st.floats(-3, 3),
        st.booleans(),
        st.text(max_size=2),
        st.none(),
        st.lists(st.integers(), max_size=1),
    ),
    operator=st.sampled_from(["==", "!=", ">", "<", ">=", "<="]),
    number=st.sampled_from(["2", "0", "-1", "0.5", "2.0"]),
)
def test_a_comparison_with_a_number_in_line_equals_the_interpreter(
    value: Any, operator: str, number: str
) -> None:
    """A property compared with a number literal is compared in line when it is an
    int (no ``compare`` call), and by ``compare`` otherwise: either way as the
    interpreter compares it, errors included."""
    text = f"@if(props.x {operator} {number})yes@else no@endif"
    template = parse_template(text, directives=True, whitespace="compat")
    compiled = _function(text, "compat", frozenset({"x"}))
    props = {"x": value}
    context = {"props": props, "env": ENV, "input": props}
    assert _outcome(lambda: compiled(props, ENV)) == _outcome(
        lambda: render(template, context)
    )
