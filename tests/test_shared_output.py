"""What a build writes can be used by the rest of a team: modes as the user's umask
gives them, and a package that works under the name it is imported as."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import imported_package, run_mcigen, schema_of, text_tool, write_schema
from .mcp_servers import TOY_SERVER

SCHEMA = schema_of(text_tool("greet", "Hello {{props.who}}!"))
SETPRIV = shutil.which("setpriv")


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A directory others may enter (pytest's own are its user's alone)."""
    directory = Path(tempfile.mkdtemp(prefix="mcigen-shared-"))
    directory.chmod(0o755)
    yield directory
    shutil.rmtree(directory)


def build_under_umask(mask: int, *args: str | Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mcigen", "build", *map(str, args)],
        capture_output=True,
        text=True,
        umask=mask,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def modes(root: Path) -> dict[str, int]:
    return {
        str(path.relative_to(root)): stat.S_IMODE(path.stat().st_mode)
        for path in [root, *root.rglob("*")]
    }


@pytest.mark.parametrize("form", [[], ["--project"], ["--vendor-runtime"]])
def test_a_build_under_umask_022_is_readable_by_everyone(
    shared_dir: Path, form: list[str]
) -> None:
    schema = write_schema(shared_dir, SCHEMA)
    build_under_umask(0o022, schema, "-o", shared_dir / "greetings", *form)
    found = modes(shared_dir / "greetings")
    wrong = {
        path: oct(mode)
        for path, mode in found.items()
        if mode != (0o755 if (shared_dir / "greetings" / path).is_dir() else 0o644)
    }
    assert wrong == {}


def test_a_build_under_umask_077_stays_its_users(shared_dir: Path) -> None:
    schema = write_schema(shared_dir, SCHEMA)
    build_under_umask(0o077, schema, "-o", shared_dir / "greetings")
    assert set(modes(shared_dir / "greetings").values()) <= {0o700, 0o600}


@pytest.mark.skipif(
    os.geteuid() != 0 or SETPRIV is None, reason="needs root and setpriv"
)
def test_another_user_imports_calls_and_lists_a_package_built_under_umask_022(
    shared_dir: Path,
) -> None:
    as_nobody = [SETPRIV or "", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    runtime = subprocess.run(
        [*as_nobody, sys.executable, "-B", "-c", "import mcigen_runtime"],
        capture_output=True,
        check=False,
    )
    if runtime.returncode != 0:
        pytest.skip(
            "nobody cannot import this checkout's runtime (a private directory)"
        )
    schema = write_schema(shared_dir, SCHEMA)
    build_under_umask(0o022, schema, "-o", shared_dir / "greetings")
    program = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(shared_dir)!r})\n"
        "import greetings\n"
        "from greetings.meta import meta_tree\n"
        "print(json.dumps([greetings.greet(who='team').text,"
        " greetings.Client().list_tools(), meta_tree('/')['children'][0]['path']]))\n"
    )
    result = subprocess.run(
        [*as_nobody, sys.executable, "-B", "-c", program],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == ["Hello team!", ["greet"], "/greet"]


def test_an_mcp_cache_written_under_umask_022_is_readable_by_everyone(
    shared_dir: Path,
) -> None:
    server = {"command": sys.executable, "args": [str(TOY_SERVER), "stdio"]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"toy": server}}
    schema = write_schema(shared_dir, document)
    build_under_umask(0o022, schema, "-o", shared_dir / "toys")
    cache = shared_dir / "mci" / "mcp" / "toy.mci.json"
    assert oct(stat.S_IMODE(cache.stat().st_mode)) == oct(0o644)


def test_a_package_built_with_another_name_works_under_the_name_it_is_imported_as(
    tmp_path: Path,
) -> None:
    """``--name greet -o out``: imported as ``out`` (its directory), every surface
    finds its tools; so it does moved inside another package."""
    schema = write_schema(tmp_path, SCHEMA)
    result = run_mcigen("build", schema, "-o", tmp_path / "out", "--name", "greeter")
    assert result.returncode == 0, result.stderr
    with imported_package(tmp_path / "out") as package:
        assert package.Client().execute("greet", {"who": "a"}).result.content[0].text
        assert package.Client().list_tools() == ["greet"]
        from out.meta import meta_tree  # type: ignore[import-not-found]

        assert [child["path"] for child in meta_tree("/")["children"]] == ["/greet"]
        from out.server import app  # type: ignore[import-not-found]

        assert app is not None
    nested = tmp_path / "app" / "tools"
    nested.parent.mkdir()
    (nested.parent / "__init__.py").write_text("")
    shutil.copytree(tmp_path / "out", nested)
    with imported_package(tmp_path / "app"):
        client = importlib.import_module("app.tools").Client()
        assert client.execute("greet", {"who": "b"}).result.content[0].text == (
            "Hello b!"
        )
