"""Differential: the hand-written template cases, compiled into text tools by one
``mcigen build`` and rendered by the tests' template interpreter (the oracle the
compiler is held to, ``interpreter.py``), against mci-py 1.2.

- COMPATIBLE cases give mci-py's result byte for byte (``model_dump(mode="json")``).
- DEFECTS cases: mci-py still gives the outcome recorded beside each, and mcigen gives
  the one it intends instead.
- TRIM cases: a package built with ``--whitespace trim`` gives the documented outputs.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.templating.lookup import TemplateRuntimeError
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import TemplateSyntaxError

from ..conftest import run_mcigen, schema_of, text_tool, write_schema
from ..oracle import OracleSession
from .cases import COMPATIBLE, DEFECTS, TRIM, Outcome
from .interpreter import render

Invoker = Callable[[dict[str, Any], dict[str, str]], Any]


def _case_tool(index: int) -> str:
    return f"case_{index:03d}"


def _defect_tool(index: int) -> str:
    return f"defect_{index:03d}"


def _trim_tool(index: int) -> str:
    return f"trim_{index:03d}"


class Built:
    """A package built from a schema, with its text tools' invokers."""

    def __init__(self, schema: Path, invokers: dict[str, Invoker]) -> None:
        self.schema = schema
        self.invokers = invokers

    def call(
        self, tool: str, props: dict[str, Any], env: dict[str, str]
    ) -> dict[str, Any]:
        try:
            return {"result": self.invokers[tool](props, env).model_dump(mode="json")}
        except Exception as error:  # an exception is a finding, reported as data
            return {"exception": f"{type(error).__name__}: {error}"}


def _build(
    directory: Path, name: str, tools: list[dict[str, Any]], *options: str
) -> Iterator[Built]:
    schema = write_schema(directory, schema_of(*tools), f"{name}.mci.json")
    built = run_mcigen("build", schema, "-o", directory / name, *options)
    assert built.returncode == 0, f"mcigen build failed:\n{built.stderr}"
    sys.path.insert(0, str(directory))
    try:
        loaded = importlib.import_module("mcigen_runtime.registry").registry(name)
        yield Built(
            schema, {entry.name: loaded.invoker(entry) for entry in loaded.tools}
        )
    finally:
        sys.path.remove(str(directory))
        for loaded in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
            del sys.modules[loaded]


@pytest.fixture(scope="module")
def compat_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    """Every COMPATIBLE and DEFECTS case as a text tool, without inputSchema."""
    tools = [text_tool(_case_tool(i), c.template) for i, c in enumerate(COMPATIBLE)]
    tools += [text_tool(_defect_tool(i), d.template) for i, d in enumerate(DEFECTS)]
    yield from _build(tmp_path_factory.mktemp("compat"), "templating_compat", tools)


@pytest.fixture(scope="module")
def trim_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    tools = [text_tool(_trim_tool(i), case[1]) for i, case in enumerate(TRIM)]
    yield from _build(
        tmp_path_factory.mktemp("trim"),
        "templating_trim",
        tools,
        "--whitespace",
        "trim",
    )


@pytest.fixture(scope="module")
def mci_py_compatible(
    oracle: OracleSession, compat_package: Built
) -> list[dict[str, Any]]:
    """mci-py's answer to every COMPATIBLE case, in one oracle request."""
    calls = [
        {"tool": _case_tool(i), "props": c.props, "env": c.env}
        for i, c in enumerate(COMPATIBLE)
    ]
    return oracle.batch(compat_package.schema, calls)


def _outcome(answer: dict[str, Any]) -> Outcome | str:
    """The answer as an Outcome, or the answer itself as text when it is not one
    text result."""
    result = answer.get("result")
    if result is None or [c.get("type") for c in result["content"]] != ["text"]:
        return repr(answer)
    return Outcome(result["content"][0]["text"], result["isError"])


def _render(text: str, props: dict[str, Any], env: dict[str, str], mode: str) -> Any:
    """The interpreter's answer in the shape of a result (or an exception)."""
    try:
        template = parse_template(text, directives=True, whitespace=mode)
        rendered = render(template, {"props": props, "env": env, "input": props})
        return _result(rendered, error=False)
    except TemplateRuntimeError as error:
        return _result(str(error), error=True)
    except Exception as error:  # a crash is a finding, reported as data
        return {"exception": f"{type(error).__name__}: {error}"}


def _result(text: str, error: bool) -> dict[str, Any]:
    content = [{"type": "text", "text": text}]
    return {"result": {"content": content, "isError": error, "metadata": None}}


def _report(failures: list[str], total: int) -> None:
    assert not failures, f"{len(failures)} of {total} cases differ:\n" + "\n".join(
        failures
    )


def _describe(
    id: str, template: str, props: Any, env: Any, expected: Any, got: Any
) -> str:
    return (
        f"- {id}\n    template: {template!r}\n    props: {props!r}  env: {env!r}\n"
        f"    expected: {expected!r}\n    got:      {got!r}"
    )


# -- the cases themselves ------------------------------------------------------------


def test_case_lists_are_well_formed() -> None:
    ids = [c.id for c in COMPATIBLE] + [d.id for d in DEFECTS]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    assert not duplicates, f"duplicate case ids: {duplicates}"
    assert len(COMPATIBLE) >= 150
    assert len(DEFECTS) >= 10
    assert len({t[0] for t in TRIM}) == len(TRIM)
    for defect in DEFECTS:
        assert defect.mci_py != defect.intended, defect.id


@pytest.mark.parametrize("mode", ["compat", "trim"])
def test_every_case_parses(mode: str) -> None:
    """Every case is a well-formed template (a syntax error would fail the build)."""
    failures = []
    templates = [(c.id, c.template) for c in COMPATIBLE]
    templates += [(d.id, d.template) for d in DEFECTS]
    templates += [(t[0], t[1]) for t in TRIM]
    for id, template in templates:
        try:
            parse_template(template, directives=True, whitespace=mode)
        except TemplateSyntaxError as error:
            failures.append(
                f"- {id}: {template!r}: {error.message} at offset {error.offset}"
            )
    _report(failures, len(templates))


# -- compatible: byte for byte what mci-py gives -------------------------------------


def test_compiled_text_tools_match_mci_py(
    compat_package: Built, mci_py_compatible: list[dict[str, Any]]
) -> None:
    failures = []
    for index, (case, theirs) in enumerate(
        zip(COMPATIBLE, mci_py_compatible, strict=True)
    ):
        assert "result" in theirs, f"mci-py raised on {case.id}: {theirs}"
        ours = compat_package.call(_case_tool(index), case.props, case.env)
        if ours != theirs:
            failures.append(
                _describe(case.id, case.template, case.props, case.env, theirs, ours)
            )
    _report(failures, len(COMPATIBLE))


def test_the_interpreter_matches_mci_py(
    mci_py_compatible: list[dict[str, Any]],
) -> None:
    """The oracle of the template compiler gives mci-py's results."""
    failures = []
    for case, theirs in zip(COMPATIBLE, mci_py_compatible, strict=True):
        ours = _render(case.template, case.props, case.env, "compat")
        if ours != theirs:
            failures.append(
                _describe(case.id, case.template, case.props, case.env, theirs, ours)
            )
    _report(failures, len(COMPATIBLE))


# -- defects: mci-py's outcome as recorded, ours as intended ---------------------------


def test_mci_py_still_has_the_recorded_defects(
    oracle: OracleSession, compat_package: Built
) -> None:
    calls = [
        {"tool": _defect_tool(i), "props": d.props, "env": d.env}
        for i, d in enumerate(DEFECTS)
    ]
    answers = oracle.batch(compat_package.schema, calls)
    failures = [
        _describe(d.id, d.template, d.props, d.env, d.mci_py, _outcome(answer))
        for d, answer in zip(DEFECTS, answers, strict=True)
        if _outcome(answer) != d.mci_py
    ]
    _report(failures, len(DEFECTS))


def test_compiled_text_tools_give_the_intended_outcome(compat_package: Built) -> None:
    failures = []
    for index, defect in enumerate(DEFECTS):
        got = _outcome(
            compat_package.call(_defect_tool(index), defect.props, defect.env)
        )
        if got != defect.intended:
            failures.append(
                _describe(
                    defect.id,
                    defect.template,
                    defect.props,
                    defect.env,
                    defect.intended,
                    got,
                )
                + f"\n    (mci-py: {defect.mci_py!r}; {defect.why})"
            )
    _report(failures, len(DEFECTS))


def test_the_interpreter_gives_the_intended_outcome() -> None:
    failures = []
    for defect in DEFECTS:
        got = _outcome(_render(defect.template, defect.props, defect.env, "compat"))
        if got != defect.intended:
            failures.append(
                _describe(
                    defect.id,
                    defect.template,
                    defect.props,
                    defect.env,
                    defect.intended,
                    got,
                )
            )
    _report(failures, len(DEFECTS))


# -- --whitespace trim -------------------------------------------------------------------


def test_trim_mode_gives_the_documented_output(trim_package: Built) -> None:
    failures = []
    for index, (id, template, props, env, expected) in enumerate(TRIM):
        got = _outcome(trim_package.call(_trim_tool(index), props, env))
        if got != Outcome(expected):
            failures.append(_describe(id, template, props, env, expected, got))
    _report(failures, len(TRIM))


def test_trim_mode_interpreter() -> None:
    failures = []
    for id, template, props, env, expected in TRIM:
        got = _outcome(_render(template, props, env, "trim"))
        if got != Outcome(expected):
            failures.append(_describe(id, template, props, env, expected, got))
    _report(failures, len(TRIM))
