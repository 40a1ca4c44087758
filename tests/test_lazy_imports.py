"""A fresh process that imports a package and calls a tool loads only what that
tool's kind needs: a text call starts no asyncio, template compiler or HTTP client,
however many kinds of tools share its module. Likewise ``mcigen`` loads only what
its command needs: the compiler's code generation (black, jinja2,
datamodel-code-generator) only for a command that emits a package."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.cache_settling import wait_until_settled
from mcigen.frontend.format_names import FORMAT_NAMES
from mcigen.frontend.formats import FORMATS

from .conftest import (
    run_mcigen,
    run_mcigen_process,
    schema_of,
    text_tool,
    write_schema,
)

EMITTING = ("black", "jinja2", "datamodel_code_generator", "mcigen.backend")
"""What only emitting a package needs: a second of CPU to import."""
COMPILING = (*EMITTING, "jsonschema", "mcigen.frontend.formats", "mcigen.planner")
"""The whole compiler: what reading, checking and planning an input needs too."""

HEAVY = (
    "asyncio",
    "httpx",
    "mcigen_runtime.templating.compiler",
    # the frameworks of mcigen_runtime.adapters
    "anthropic",
    "pydantic_ai",
    "langchain_core",
    "agents",
)


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("lazy")
    (directory / "note.txt").write_text("Note for {{props.who}}", "utf-8")
    schema = schema_of(
        text_tool("hello", "Hello {{props.who}}"),
        {"name": "note", "execution": {"type": "file", "path": "./note.txt"}},
        {"name": "echo", "execution": {"type": "cli", "command": "echo"}},
        {"name": "ping", "execution": {"type": "http", "url": "http://127.0.0.1:9"}},
    )
    path = write_schema(directory, schema, "lazy.mci.json")
    result = run_mcigen("build", path, "-o", directory / "lazypkg")
    assert result.returncode == 0, result.stderr
    return directory


OTHER_KINDS = (
    "tempfile",
    "shutil",
    "bz2",
    "lzma",
    "json",
    "mcigen_runtime.executors.http.parts",
    "mcigen_runtime.executors.http.request",
    "mcigen_runtime.executors.cli.args",
    "mcigen_runtime.executors.cli.argv",
    "mcigen_runtime.executors.cli.call",
    "mcigen_runtime.executors.file.contents",
    "shlex",
)
"""What a cli call (tempfile writes its file arguments, and loads shutil, bz2 and
lzma) or an http call (json encodes its body; auth and retry) needs, and a text
call does not: ~35 M instructions of a cold start; then the modules of the cli,
http and file faces themselves (the call classes, the command line's parts, the
file reader), which the group module names as the faces' attributes: ~7 M more."""


def _loaded_after(
    directory: Path, call: str, watched: tuple[str, ...] = HEAVY
) -> tuple[object, list[str]]:
    """What ``call`` returns in a fresh process, and the ``watched`` modules then
    loaded (json is imported after they are listed)."""
    probe = (
        "import sys\n"
        "import lazypkg\n"
        f"result = {call}\n"
        f"loaded = sorted(m for m in sys.modules if m in {watched!r})\n"
        "import json\n"
        "print(json.dumps(result))\n"
        "print(json.dumps(loaded))\n"
    )
    result, loaded = _printed(directory, probe).strip().splitlines()
    return json.loads(result), json.loads(loaded)


def _printed(directory: Path, probe: str) -> str:
    """What the Python code ``probe`` prints in a fresh process in ``directory``."""
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=directory,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_a_text_call_loads_no_executor_machinery(directory: Path) -> None:
    assert _loaded_after(directory, "lazypkg.hello(who='Ann').text") == (
        "Hello Ann",
        [],
    )


def test_a_text_call_loads_nothing_of_other_kinds(directory: Path) -> None:
    """The package's group module names the cli and http executors too."""
    call = "lazypkg.hello(who='Ann').text"
    assert _loaded_after(directory, call, OTHER_KINDS) == ("Hello Ann", [])


def test_a_text_call_of_good_input_loads_no_input_errors(directory: Path) -> None:
    """``ToolInputError`` (and the printing of its message) is for doubted input."""
    call = "lazypkg.hello(who='Ann').text"
    watched = ("mcigen_runtime.errors", "mcigen_runtime.printable")
    assert _loaded_after(directory, call, watched) == ("Hello Ann", [])


def test_a_file_call_compiles_its_template_without_asyncio(directory: Path) -> None:
    assert _loaded_after(directory, "lazypkg.note(who='Ann').text") == (
        "Note for Ann",
        ["mcigen_runtime.templating.compiler"],
    )


def test_an_http_call_loads_httpx_on_its_first_request(directory: Path) -> None:
    text, loaded = _loaded_after(directory, "lazypkg.ping().isError")
    assert (text, loaded) == (True, ["httpx"])


@pytest.mark.parametrize(
    ("call", "module", "failed"),
    [
        ("echo", "mcigen_runtime.executors.cli.run", False),
        ("ping", "mcigen_runtime.executors.http.transport", True),
    ],
)
def test_an_awaited_call_imports_its_runner_off_the_event_loop(
    directory: Path, call: str, module: str, failed: bool
) -> None:
    """The first ``<tool>_async`` of a cli tool imports the command runner, of an
    http tool the transport (httpx), each tens of ms of CPU, in another thread than
    the loop's, whose other tasks go on."""
    probe = (
        "import asyncio, json, sys, threading\n"
        "import lazypkg\n"
        f"call = lazypkg.{call}_async\n"
        "threads = []\n"
        "class Watch:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r}:\n"
        "            threads.append(threading.current_thread().name)\n"
        "sys.meta_path.insert(0, Watch())\n"
        f"assert asyncio.run(call()).isError is {failed}\n"
        "print(json.dumps(threads))\n"
    )
    [importer] = json.loads(_printed(directory, probe))
    assert importer != "MainThread"  # the loop's: asyncio.run's


FORKED_MID_IMPORT = """\
import asyncio, json, os, signal, sys, threading, time
import lazypkg
importing = threading.Event()
class Slow:  # the import as on a loaded machine: it takes a while
    def find_spec(self, name, path=None, target=None):
        if name == sys.argv[1] and threading.current_thread().name != "MainThread":
            importing.set()
            time.sleep(0.3)
sys.meta_path.insert(0, Slow())
async def main():
    first = asyncio.ensure_future(getattr(lazypkg, sys.argv[2] + "_async")())
    while not importing.is_set():
        await asyncio.sleep(0.001)
    child = os.fork()
    if child == 0:  # its own first call, signalled if it waits on
        signal.alarm(30)
        getattr(lazypkg, sys.argv[2])()
        os._exit(0)
    await first
    print(json.dumps(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])))
asyncio.run(main())
"""


@pytest.mark.parametrize(
    ("call", "module"),
    [
        ("echo", "mcigen_runtime.executors.cli.run"),
        ("ping", "mcigen_runtime.executors.http.transport"),
    ],
)
def test_a_process_forked_during_an_off_loop_import_can_call_too(
    directory: Path, call: str, module: str
) -> None:
    """A process forked while the first awaited call imports its runner in a
    thread (an asyncio app starting a ``ProcessPoolExecutor``, ``fork`` being
    ``multiprocessing``'s default here): the child's own call runs. The child
    had the module's import lock, held by a thread it does not have, and its
    call waited on it forever (here, until SIGALRM: -14)."""
    done = subprocess.run(
        [sys.executable, "-c", FORKED_MID_IMPORT, module, call],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == 0, done.stderr


@pytest.mark.parametrize(
    ("variables", "imported"),
    [
        ({}, False),
        ({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "console"}, False),
        ({"OTEL_TRACES_EXPORTER": "console"}, True),
    ],
)
def test_the_asgi_app_imports_the_opentelemetry_sdk_only_when_asked(
    directory: Path, variables: dict[str, str], imported: bool
) -> None:
    """The ``otel`` extra costs nothing until ``OTEL_*`` variables ask for it."""
    probe = "import sys, lazypkg.server; print('opentelemetry.sdk' in sys.modules)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=directory,
        env={**env, **variables},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == str(imported)


def _compiler_loaded(probe: str, watched: tuple[str, ...], cwd: Path) -> list[str]:
    """The modules of ``watched`` that ``probe`` (Python, in a fresh process whose
    stdin is empty) has loaded when it ends (json is imported after they are
    listed)."""
    report = (
        "\nimport sys\n"
        f"_loaded = sorted(m for m in sys.modules if m in {watched!r})\n"
        "import json\n"
        "print(json.dumps(_loaded), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe + report],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    loaded: list[str] = json.loads(done.stderr.strip().splitlines()[-1])
    return loaded


def _command(*argv: str) -> str:
    """Python that runs ``mcigen ARGV`` as the console script does."""
    return (
        "from mcigen.cli import main\n"
        f"try:\n    main({list(argv)!r})\n"
        "except SystemExit:\n    pass"
    )


@pytest.mark.parametrize(
    "argv",
    [("--version",), ("--help",), ("build", "--help"), ("frobnicate",)],
    ids=["version", "help", "build-help", "usage-error"],
)
def test_version_help_and_usage_errors_load_no_compiler(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    assert _compiler_loaded(_command(*argv), COMPILING, tmp_path) == []


def test_a_cached_serve_loads_nothing_that_emits(directory: Path) -> None:
    """``mcigen serve INPUT`` whose package the cache holds builds nothing."""
    schema = str(directory / "lazy.mci.json")
    assert run_mcigen_process("serve", schema).returncode == 0  # fills the cache
    assert _compiler_loaded(_command("serve", schema), EMITTING, directory) == []


def test_list_loads_nothing_that_emits(directory: Path) -> None:
    probe = _command("list", str(directory / "lazy.mci.json"))
    assert _compiler_loaded(probe, EMITTING, directory) == []


def test_a_schema_without_mcp_servers_loads_no_mcp_client(directory: Path) -> None:
    """The runtime's MCP calls (pydantic, the results: a fifth of a one-tool
    rebuild's imports) are loaded only to list a server's tools."""
    probe = _command("list", str(directory / "lazy.mci.json"))
    watched = ("mcigen_runtime.executors.mcp.calls",)
    assert _compiler_loaded(probe, watched, directory) == []


def test_a_cached_mci_client_loads_no_compiler(directory: Path) -> None:
    probe = "from mcigen import MCIClient\nMCIClient('lazy.mci.json')"
    _compiler_loaded(probe, COMPILING, directory)  # fills the cache
    assert _compiler_loaded(probe, COMPILING, directory) == []


def test_a_cached_mci_client_and_its_text_call_load_nothing_of_other_kinds(
    directory: Path,
) -> None:
    """Nor do the package cache's modules, which need tempfile and shutil to
    build and prune alone, nor the records and manifest it reads (json: ~5 M
    instructions to import)."""
    probe = (
        "from mcigen import MCIClient\n"
        "result = MCIClient('lazy.mci.json').execute('hello', {'who': 'Ann'})\n"
        "assert result.result.content[0].text == 'Hello Ann', result\n"
    )
    _compiler_loaded(probe, OTHER_KINDS, directory)  # fills the cache
    wait_until_settled(Path(os.environ["MCIGEN_CACHE_DIR"]))
    wait_until_settled(directory)  # the schema's: a hit that remembers it writes
    _compiler_loaded(probe, OTHER_KINDS, directory)  # records the settled statuses
    assert _compiler_loaded(probe, OTHER_KINDS, directory) == []


def test_the_parsers_format_names_are_the_registrys() -> None:
    """``--from`` offers them without loading the formats' readers."""
    assert FORMAT_NAMES == tuple(known.name for known in FORMATS)
