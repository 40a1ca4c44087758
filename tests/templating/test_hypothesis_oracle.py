"""Property: on generated templates within mci-py's correct subset, the tests' template
interpreter (the oracle of the template compiler, ``compat`` whitespace) gives mci-py
1.2's text, or an error with its message."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.parser import parse_template

from ..oracle import OracleSession
from .interpreter import render
from .strategies import template_cases


def _mci_py(
    oracle: OracleSession, text: str, props: dict[str, Any], env: dict[str, str]
) -> tuple[str, bool]:
    answer = oracle.render(text, props, env)
    assert "result" in answer, f"mci-py raised: {answer}"
    result = answer["result"]
    assert [c["type"] for c in result["content"]] == ["text"], result
    return result["content"][0]["text"], result["isError"]


def _ours(text: str, props: dict[str, Any], env: dict[str, str]) -> tuple[str, bool]:
    template = parse_template(text, directives=True, whitespace="compat")
    try:
        return render(template, {"props": props, "env": env, "input": props}), False
    except TemplateRuntimeError as error:
        return str(error), True


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@example(
    case=(
        "@foreach(x in props.d1)\n@if(props.b1)\n- {{x.a}}\n@else\n{{ x.b }}\n@endif\n"
        "@endforeach",
        {"d1": [{"a": 1, "b": "two"}], "b1": False},
        {},
        "none",
    )
)
@given(case=template_cases())
def test_the_interpreter_agrees_with_mci_py(
    oracle: OracleSession, case: tuple[str, dict[str, Any], dict[str, str], str]
) -> None:
    text, props, env, failure = case
    expected = _mci_py(oracle, text, props, env)
    got = _ours(text, props, env)
    assert got == expected, (
        f"\ntemplate: {text!r}\nprops: {props!r}\nenv: {env!r}\nfailure kind: "
        f"{failure}\nmci-py: {expected!r}\nours:   {got!r}"
    )
