"""What ``check`` (and ``build``, which says the same) can know at build time about a
schema mci-py accepts but that would not do what it says: each is a warning at the
spot, in file:line:column form."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from .conftest import run_mcigen

PROPS = """\
    inputSchema:
      type: object
      properties:
        auth: {type: string}
        id: {type: string}
"""

CASES = {
    "flag-from-undeclared": (
        "cli\n      command: echo\n      flags:\n"
        "        --auth: {from: props.authr, type: value}\n",
        "13:24",
        "flag '--auth' is never added: property 'authr' is not declared in the "
        "inputSchema; undeclared properties are dropped, so 'props.authr' never "
        "resolves",
    ),
    "flag-from-unknown-root": (
        "cli\n      command: echo\n      flags:\n"
        "        -v: {from: prop.auth, type: boolean}\n",
        "13:20",
        "flag '-v' is never added: 'prop' is not one of props, input, env, so "
        "'prop.auth' never resolves",
    ),
    "unclosed-url-placeholder": (
        'http\n      url: "http://127.0.0.1:1/items/{{props.id"\n',
        "11:38",
        "'{{' opens no placeholder (no '}}' closes it before the next '}'), so it "
        "is kept as text and used as written",
    ),
    "unclosed-header-placeholder": (
        'http\n      url: "http://127.0.0.1:1/"\n'
        '      headers: {X-Auth: "Bearer {{props.auth}"}\n',
        "12:33",
        "'{{' opens no placeholder (no '}}' closes it before the next '}'), so it "
        "is kept as text and used as written",
    ),
    "stray-endif": (
        'text\n      text: "done @endif, really @endfor"\n',
        "11:19",
        "'@endif' is outside any block it could close, so it is kept as text and "
        "shown as written (1 more in this string)",
    ),
    "missing-file": (
        "file\n      path: ./templates/absent.txt\n",
        "11:13",
        "file tool 't' reads './templates/absent.txt', which is not a file "
        "(relative to the schema's directory, {dir}): every call fails until it "
        "is there",
    ),
}


def _schema(directory: Path, execution: str, properties: str = PROPS) -> Path:
    schema = directory / "tools.mci.yaml"
    schema.write_text(
        'schemaVersion: "1.0"\ntools:\n  - name: t\n'
        + properties
        + "    execution:\n      type: "
        + execution
    )
    return schema


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_check_and_build_warn_at_the_spot(tmp_path: Path, case: str) -> None:
    execution, where, message = CASES[case]
    schema = _schema(tmp_path, execution)
    checked = run_mcigen("check", schema)
    built = run_mcigen("build", schema, "-o", tmp_path / "package")
    expected = f"{schema}:{where}: warning: {message.replace('{dir}', str(tmp_path))}"
    assert checked.returncode == built.returncode == 0, checked.stderr
    assert expected in checked.stderr.splitlines()
    assert checked.stderr == built.stderr


@pytest.mark.parametrize(
    ("keyword", "bad", "line"),
    [
        ("minimum: 1", "0", "'default' 0 breaks its own 'minimum' (1)"),
        ("maximum: 9", "10", "'default' 10 breaks its own 'maximum' (9)"),
        (
            "exclusiveMinimum: 0",
            "0",
            "'default' 0 breaks its own 'exclusiveMinimum' (0)",
        ),
        ("enum: [1, 2]", "3", "'default' 3 breaks its own 'enum' ([1, 2])"),
    ],
)
def test_a_default_that_breaks_its_own_constraint_is_a_warning(
    tmp_path: Path, keyword: str, bad: str, line: str
) -> None:
    properties = (
        "    inputSchema:\n      type: object\n      properties:\n"
        f"        n: {{type: integer, {keyword}, default: {bad}}}\n"
    )
    schema = _schema(tmp_path, 'text\n      text: "{{props.n}}"\n', properties)
    checked = run_mcigen("check", schema)
    assert checked.returncode == 0
    warnings = [w for w in checked.stderr.splitlines() if "default" in w]
    assert len(warnings) == 1
    assert warnings[0].startswith(f"{schema}:7:")
    assert f": warning: {line}: the function called without it raises" in warnings[0]


def test_a_default_against_its_pattern_or_length_is_a_warning(tmp_path: Path) -> None:
    properties = (
        "    inputSchema:\n      type: object\n      properties:\n"
        '        p: {type: string, pattern: "^[a-z]+$", default: ABC}\n'
        "        q: {type: string, maxLength: 2, default: abc}\n"
        '        r: {type: string, pattern: "^[a-z]+$", default: abc}\n'
    )
    schema = _schema(tmp_path, 'text\n      text: "{{props.p}}"\n', properties)
    checked = run_mcigen("check", schema)
    assert [w.split(": warning: ")[1].split(":")[0] for w in _warnings(checked)] == [
        "'default' 'ABC' breaks its own 'pattern' ('^[a-z]+$')",
        "'default' 'abc' breaks its own 'maxLength' (2)",
    ]


def test_what_works_draws_no_warning(tmp_path: Path) -> None:
    (tmp_path / "greeting.txt").write_text("hello")
    properties = (
        "    inputSchema:\n      type: object\n      properties:\n"
        "        n: {type: integer, minimum: 1, enum: [1, 2], default: 2}\n"
        "        auth: {type: string}\n"
    )
    for execution in (
        "file\n      path: greeting.txt\n",
        "file\n      path: '{{props.auth}}.txt'\n",
        'text\n      text: "@if(props.n) a @endif {{props.n}} a@elsewhere.org"\n',
        "cli\n      command: echo\n      flags:\n"
        "        --auth: {from: props.auth, type: value}\n"
        "        -e: {from: env.HOME, type: value}\n",
        'http\n      url: "http://127.0.0.1:1/{ x }/{{props.auth}}"\n',
    ):
        checked = run_mcigen("check", _schema(tmp_path, execution, properties))
        assert (checked.returncode, checked.stderr) == (0, ""), execution


def _warnings(result: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in result.stderr.splitlines() if ": warning: " in line]
