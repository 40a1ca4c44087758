"""The ``Dockerfile`` of a ``--project`` build: an image that serves the tools over
HTTP as a user that is not root. Where ``docker info`` works, the image is built
and run; elsewhere its commands are run directly: its ``RUN pip install`` into a
fresh virtual environment of a Python outside root's home (what the image's
Python stands for), its ``CMD`` as its ``USER``, and its ``HEALTHCHECK``. The
project carries its runtime (``--vendor-runtime``), so that everything it
installs comes from the package index, in the image as here."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from .conftest import run_mcigen
from .mcp_servers import free_port, listening
from .test_installed_package import write_input

PORT = 8000
UID = 10001
CALL = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "tools/call",
    "params": {"name": "greet", "arguments": {"name": "image"}},
}


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of each line, continuations joined, comments out."""
    text = re.sub(r"\\\n\s*", " ", dockerfile.read_text())
    found = []
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word, rest.strip()))
    return found


def docker_works() -> bool:
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "info"], capture_output=True).returncode == 0


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("image")
    schema = write_input(work)
    project = work / "installed-tools"
    built = run_mcigen("build", schema, "-o", project, "--project", "--vendor-runtime")
    assert built.returncode == 0, built.stderr
    return project


def test_the_dockerfile_runs_the_server_as_a_user_that_is_not_root(
    project: Path,
) -> None:
    steps = instructions(project / "Dockerfile")
    assert ("USER", f"{UID}:{UID}") in steps
    user = [index for index, (word, _) in enumerate(steps) if word == "USER"]
    cmd = [index for index, (word, _) in enumerate(steps) if word == "CMD"]
    assert user[-1] < cmd[-1]
    assert json.loads(dict(steps)["CMD"]) == [
        "python",
        "-m",
        "installed_tools",
        "serve",
        "--http",
        f"0.0.0.0:{PORT}",
    ]


def test_the_image_serves_the_tools_and_answers_its_healthcheck(
    project: Path,
) -> None:
    if docker_works():
        serving = in_docker(project)
    else:
        serving = run_directly(project)
    with serving as (base, uid):
        answer = httpx.post(f"{base}/mcp", json=CALL, timeout=30).json()
        assert answer["result"]["content"][0]["text"] == "Hello, image!"
        assert httpx.get(f"{base}/readyz", timeout=10).status_code == 200
        assert uid == UID


@contextmanager
def in_docker(project: Path) -> Iterator[tuple[str, int]]:
    image = f"mcigen-test-{os.getpid()}"
    subprocess.run(["docker", "build", "-q", "-t", image, str(project)], check=True)
    port = free_port()
    started = subprocess.run(
        ["docker", "run", "-d", "--rm", "-p", f"127.0.0.1:{port}:{PORT}", image],
        check=True,
        capture_output=True,
        text=True,
    )
    container = started.stdout.strip()
    try:
        deadline = time.monotonic() + 60
        while True:
            state = subprocess.run(
                ["docker", "inspect", "-f", "{{.State.Health.Status}}", container],
                capture_output=True,
                text=True,
            ).stdout.strip()
            if state == "healthy" or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert state == "healthy"
        uid = subprocess.run(
            ["docker", "exec", container, "id", "-u"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        yield f"http://127.0.0.1:{port}", int(uid)
    finally:
        subprocess.run(["docker", "rm", "-f", container], capture_output=True)
        subprocess.run(["docker", "rmi", "-f", image], capture_output=True)


@contextmanager
def run_directly(project: Path) -> Iterator[tuple[str, int]]:
    """The Dockerfile's commands without docker (see the module docs)."""
    base_python = shutil.which("python3.11", path="/usr/local/bin:/usr/bin")
    if base_python is None:
        pytest.skip("no docker, and no Python 3.11 a user that is not root can run")
    steps = instructions(project / "Dockerfile")
    home = Path(tempfile.mkdtemp(prefix="mcigen-image-"))
    home.chmod(0o755)  # the image's files are readable by its user
    try:
        venv = home / "venv"
        subprocess.run([base_python, "-m", "venv", str(venv)], check=True)
        bin_dir = str(venv / "bin")
        [install] = [rest for word, rest in steps if word == "RUN" and "pip" in rest]
        command = install.replace("/src", str(project))
        subprocess.run(
            ["sh", "-c", command],
            check=True,
            env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        )
        port = free_port()
        argv = json.loads(dict(steps)["CMD"])
        argv[-1] = argv[-1].replace(str(PORT), str(port))
        user, group = (int(part) for part in dict(steps)["USER"].split(":"))
        env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": "/nonexistent"}
        with listening(
            argv,
            port,
            timeout=60,
            cwd="/",
            env=env,
            user=user,
            group=group,
            extra_groups=[],
        ) as process:
            check = json.loads(dict(steps)["HEALTHCHECK"].removeprefix("CMD "))
            check = [part.replace(str(PORT), str(port)) for part in check]
            healthy = subprocess.run(
                check, env=env, user=user, group=group, extra_groups=[]
            )
            assert healthy.returncode == 0, shlex.join(check)
            status = Path(f"/proc/{process.pid}/status").read_text()
            [uid] = re.findall(r"^Uid:\s+(\d+)", status, re.MULTILINE)
            yield f"http://127.0.0.1:{port}", int(uid)
    finally:
        shutil.rmtree(home, ignore_errors=True)
