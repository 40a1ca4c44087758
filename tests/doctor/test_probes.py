"""The availability probes of MTDF tools (AHMA-SEMANTICS §8.8): which listed tools
are probed, with what command, codes, directory, timeout and install text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcigen import ir
from mcigen.frontend.mtdf import MtdfTool, mtdf_tools

AHMA_TOOLS = Path(__file__).parent.parent / "fixtures" / "mtdf" / "ahma"


def _listed(folder: Path, *tools: dict[str, Any]) -> dict[str, MtdfTool]:
    for tool in tools:
        path = folder / f"{tool['name']}.json"
        path.write_text(json.dumps(tool), encoding="utf-8")
    listed, diagnostics = mtdf_tools(folder)
    assert not diagnostics.has_errors, diagnostics.sorted()
    return {tool.name: tool for tool in listed}


def _tool(name: str, command: str, **fields: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The {name} tool",
        "command": command,
        **fields,
    }


def _sub(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": f"The {name} subcommand", **fields}


def test_ahma_git_tools_share_the_tools_check() -> None:
    listed = {tool.name: tool for tool in mtdf_tools(AHMA_TOOLS)[0]}
    git_probe = ir.Probe("git", ("git", "--version"), (0,), None, 180_000, None)
    for name in ("git_status", "git_add", "git_commit", "git_push", "git_log"):
        assert listed[name].probes == (git_probe,)


def test_ahma_leaf_with_its_own_check_gets_a_second_probe() -> None:
    listed = {tool.name: tool for tool in mtdf_tools(AHMA_TOOLS)[0]}
    cargo = ir.Probe("cargo", ("cargo", "--version"), (0,), None, 600_000, None)
    nextest = ir.Probe(
        "cargo::nextest_run",
        ("cargo", "nextest", "--version"),
        (0,),
        None,
        1_800_000,  # the leaf's own timeout_seconds
        "Install with `cargo install cargo-nextest` and ensure it is on PATH.",
    )
    assert listed["cargo_nextest_run"].probes == (cargo, nextest)
    assert listed["cargo_build"].probes == (cargo,)
    assert listed["file-tools_ls"].probes[0].argv == ("sh", "-c", "exit 0")


def test_a_tool_without_check_is_probed_with_which(tmp_path: Path) -> None:
    listed = _listed(tmp_path, _tool("jq", "jq --raw-output"))
    assert listed["jq"].probes == (
        ir.Probe("jq", ("/usr/bin/env", "which", "jq"), (0,), None, 10_000, None),
    )


def test_sequences_and_relative_programs_without_check_are_not_probed(
    tmp_path: Path,
) -> None:
    listed = _listed(
        tmp_path,
        _tool("local", "./run.sh"),
        _tool("parent", "../bin/run"),
        _tool("checked", "./run.sh", availability_check={"args": ["--help"]}),
    )
    assert listed["local"].probes == ()
    assert listed["parent"].probes == ()
    assert listed["checked"].probes[0].argv == ("./run.sh", "--help")


def test_a_check_gives_command_args_codes_directory_and_timeout(
    tmp_path: Path,
) -> None:
    check = {
        "command": "python3 -m pip",
        "args": ["--version"],
        "working_directory": "/tmp",
        "success_exit_codes": [0, 3],
    }
    listed = _listed(
        tmp_path,
        _tool(
            "pip",
            "pip",
            timeout_seconds=7,
            availability_check=check,
            install_instructions="apt install python3-pip",
        ),
        _tool("empty", "true", availability_check={"success_exit_codes": []}),
    )
    assert listed["pip"].probes == (
        ir.Probe(
            "pip",
            ("python3", "-m", "pip", "--version"),
            (0, 3),
            "/tmp",
            7_000,
            "apt install python3-pip",
        ),
    )
    assert listed["empty"].probes[0].success_exit_codes == (0,)


def test_leaf_checks_fall_back_to_the_tools_command_timeout_and_instructions(
    tmp_path: Path,
) -> None:
    listed = _listed(
        tmp_path,
        _tool(
            "npm",
            "npm",
            timeout_seconds=20,
            install_instructions="install Node.js",
            subcommand=[
                _sub("ci"),
                _sub("audit", availability_check={"args": ["audit", "--help"]}),
                _sub(
                    "exec",
                    subcommand=[
                        _sub(
                            "default",
                            timeout_seconds=3,
                            availability_check={"command": "npx", "args": ["-v"]},
                            install_instructions="npm i -g npx",
                        )
                    ],
                ),
            ],
        ),
    )
    tool_probe = ir.Probe(
        "npm", ("/usr/bin/env", "which", "npm"), (0,), None, 20_000, "install Node.js"
    )
    assert listed["npm_ci"].probes == (tool_probe,)
    assert listed["npm_audit"].probes == (
        tool_probe,
        ir.Probe(
            "npm::audit",
            ("npm", "audit", "--help"),
            (0,),
            None,
            20_000,
            "install Node.js",
        ),
    )
    assert listed["npm_exec"].probes == (
        tool_probe,
        ir.Probe("npm::exec", ("npx", "-v"), (0,), None, 3_000, "npm i -g npx"),
    )


def test_a_namespace_check_probes_nothing(tmp_path: Path) -> None:
    listed = _listed(
        tmp_path,
        _tool(
            "kubectl",
            "kubectl",
            subcommand=[
                _sub(
                    "config",
                    availability_check={"args": ["config", "--help"]},
                    subcommand=[_sub("view")],
                )
            ],
        ),
    )
    assert [probe.subject for probe in listed["kubectl_config_view"].probes] == [
        "kubectl"
    ]


def test_the_examples_probe_their_programs() -> None:
    examples = Path(__file__).parent.parent.parent / "examples" / "ahma"
    listed, diagnostics = mtdf_tools(examples)
    assert not diagnostics.sorted()
    probes = {tool.name: [probe.argv for probe in tool.probes] for tool in listed}
    assert probes["archive"] == [("tar", "--version")]
    assert probes["search"] == [("/usr/bin/env", "which", "grep")]
    assert {
        tuple(argvs) for name, argvs in probes.items() if name.startswith("repo")
    } == {(("git", "--version"),)}
