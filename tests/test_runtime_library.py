"""Generated packages import one runtime, mcigen-runtime: two packages in a process share
its types, and a package refuses, in one line, a runtime it was not generated for."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import mcigen_runtime
import pytest
from mcigen_runtime.extras import extra_requirements

from .conftest import ROOT, schema_of, text_tool

NEEDED = mcigen_runtime.requirement(mcigen_runtime.__version__)
STRICT = {
    "type": "object",
    "properties": {"who": {"type": "string"}},
    "required": ["who"],
}


def _two_packages(build: Callable[..., ModuleType]) -> tuple[ModuleType, ModuleType]:
    alpha = build(schema_of(text_tool("hello", "Hi {{props.who}}", inputSchema=STRICT)))
    beta = build(
        schema_of(text_tool("bye", "Bye {{props.who}}", inputSchema=STRICT)), "beta"
    )
    return alpha, beta


def test_two_packages_share_tool_result_and_tool_input_error(
    build: Callable[..., ModuleType],
) -> None:
    alpha, beta = _two_packages(build)
    assert alpha.ToolResult is beta.ToolResult
    assert isinstance(alpha.hello(who="Ann"), beta.ToolResult)
    with pytest.raises(beta.ToolInputError) as caught:
        alpha.hello(who=3)
    assert "who" in str(caught.value)
    try:
        beta.bye(who=["not", "a", "string"])
    except alpha.ToolInputError as error:  # the other package's class catches it
        assert "who" in str(error)
    else:
        pytest.fail("no ToolInputError")


def test_one_package_s_client_error_is_the_other_s(
    build: Callable[..., ModuleType],
) -> None:
    alpha, beta = _two_packages(build)
    assert alpha.MCIClientError is beta.MCIClientError
    with pytest.raises(beta.MCIClientError):
        alpha.Client().execute("no-such-tool", {})


def test_the_runtime_s_version_is_the_one_mcigen_depends_on() -> None:
    def declared(pyproject: Path) -> dict[str, object]:
        project: dict[str, object] = tomllib.loads(pyproject.read_text())["project"]
        return project

    dependencies = declared(ROOT / "pyproject.toml")["dependencies"]
    assert isinstance(dependencies, list)
    assert f"mcigen-runtime[http,mcp]=={mcigen_runtime.__version__}" in dependencies
    runtime = declared(ROOT / "runtime" / "pyproject.toml")
    assert runtime["dependencies"] == ["pydantic>=2.12.2,<3"]


@pytest.fixture
def package_dir(build: Callable[..., ModuleType], tmp_path: Path) -> Path:
    build(schema_of(text_tool("hello", "Hi")), "hello")
    return tmp_path


def _runtime_of_version(tmp_path: Path, version: str) -> Path:
    """A copy of the runtime that says it is ``version``, to put first on the path."""
    copy = tmp_path / f"runtime-{version}"
    shutil.copytree(Path(mcigen_runtime.__file__).parent, copy / "mcigen_runtime")
    init = copy / "mcigen_runtime" / "__init__.py"
    text = init.read_text()
    init.write_text(
        text.replace(
            f'__version__ = "{mcigen_runtime.__version__}"',
            f'__version__ = "{version}"',
        )
    )
    return copy


def _run(
    code: list[str], path: list[Path], cwd: Path
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
    return subprocess.run(
        [sys.executable, *code],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("command", [["-c", "import hello"], ["-m", "hello", "list"]])
def test_an_older_runtime_is_refused_in_one_line(
    package_dir: Path, tmp_path: Path, command: list[str]
) -> None:
    older = _runtime_of_version(tmp_path, "0.0.9")
    result = _run(command, [older, package_dir], package_dir)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"mcigen_runtime.RuntimeVersionError: hello needs mcigen-runtime{NEEDED}, "
        f"but mcigen-runtime 0.0.9 is installed: pip install 'mcigen-runtime{NEEDED}'"
    )
    assert "cannot import name" not in result.stderr


def test_a_runtime_of_a_later_series_is_refused_with_both_remedies(
    package_dir: Path, tmp_path: Path
) -> None:
    later = _runtime_of_version(tmp_path, "7.0.0")
    result = _run(["-c", "import hello"], [later, package_dir], package_dir)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].endswith(
        f"pip install 'mcigen-runtime{NEEDED}', or rebuild hello with mcigen 7.0.0"
    )


def test_a_package_generated_for_runtime_0_1_says_what_to_install(
    package_dir: Path,
) -> None:
    # 0.2 moved the runtime's modules into subpackages: a 0.1 package's imports
    # would fail deep inside; its version check speaks first
    init = package_dir / "hello" / "__init__.py"
    generated = f'require_runtime("{mcigen_runtime.__version__}", __name__)'
    assert generated in init.read_text()
    init.write_text(
        init.read_text().replace(generated, 'require_runtime("0.1.0", __name__)')
    )
    result = _run(["-c", "import hello"], [package_dir], package_dir)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "mcigen_runtime.RuntimeVersionError: hello needs mcigen-runtime>=0.1.0,<0.2, "
        f"but mcigen-runtime {mcigen_runtime.__version__} is installed: "
        "pip install 'mcigen-runtime>=0.1.0,<0.2', or rebuild hello with mcigen "
        f"{mcigen_runtime.__version__}"
    )


def test_a_newer_runtime_of_the_same_series_runs_the_package(
    package_dir: Path, tmp_path: Path
) -> None:
    major, minor, micro = mcigen_runtime.__version__.split(".")
    newer = _runtime_of_version(tmp_path, f"{major}.{minor}.{int(micro) + 5}")
    result = _run(
        ["-c", "import hello; print(hello.hello().text)"],
        [newer, package_dir],
        package_dir,
    )
    assert (result.returncode, result.stdout) == (0, "Hi\n"), result.stderr


def test_a_missing_runtime_says_what_to_install(package_dir: Path) -> None:
    # -S: no site-packages, so neither mcigen_runtime nor anything else installed
    result = _run(["-S", "-c", "import hello"], [package_dir], package_dir)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"ModuleNotFoundError: hello needs mcigen-runtime{NEEDED}: "
        f"pip install 'mcigen-runtime{NEEDED}'"
    )


@pytest.mark.parametrize(
    ("version", "specifier"),
    [("0.1.0", ">=0.1.0,<0.2"), ("0.4.2", ">=0.4.2,<0.5"), ("1.3.0", ">=1.3.0,<2")],
)
def test_the_requirement_of_a_runtime_version(version: str, specifier: str) -> None:
    assert mcigen_runtime.requirement(version) == specifier


def test_the_extras_checked_at_call_time_are_the_ones_the_runtime_declares() -> None:
    declared = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())
    extras = declared["project"]["optional-dependencies"]
    assert {name: [need] for name, need in extra_requirements().items()} == extras


def test_serving_next_to_an_mcp_sdk_1_says_what_to_install(
    package_dir: Path, tmp_path: Path
) -> None:
    old_sdk = tmp_path / "mcp-1"
    (old_sdk / "mcp").mkdir(parents=True)
    (old_sdk / "mcp" / "__init__.py").write_text("")
    info = old_sdk / "mcp-1.9.4.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcp\nVersion: 1.9.4\n")
    serve = (
        "import runpy, sys\n"
        "sys.modules['mcp_types'] = None  # what an MCP SDK 1.x does not have\n"
        "sys.argv = ['hello', 'serve']\n"
        "runpy.run_module('hello', run_name='__main__')\n"
    )
    result = _run(["-c", serve], [old_sdk, package_dir], package_dir)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "error: MCP tools and serving over MCP need "
        "the MCP SDK 2 (mcp 1.9.4 is installed): pip install 'mcigen-runtime[mcp]' "
        "(or 'mcp>=2.3,<3' for a package built with --vendor-runtime)"
    ]
