"""The command lines of Ahma's own tools (AHMA-SEMANTICS §7), run through stub
programs that print what they were given; where we differ from Ahma on purpose
the test carries the COMPATIBILITY.md row."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.registry import UnknownToolError

from .support import TEMP_FILE_PREFIX, call, printed


def argv(package: str, tool: str, **arguments: object) -> list[str]:
    result: list[str] = printed(call(package, tool, **arguments))["argv"]
    return result


def test_row_1_options_in_key_order(ahma: str, workspace: Path) -> None:
    assert argv(ahma, "cargo_build", release=True, bin="ahma") == [
        "cargo",
        "build",
        "--bin",
        "ahma",
        "--release",
    ]


def test_row_2_options_then_positionals(ahma: str, workspace: Path) -> None:
    assert argv(
        ahma, "cargo_add", dependencies="serde", features="derive", dev=True
    ) == [
        "cargo",
        "add",
        "--dev",
        "--features",
        "derive",
        "serde",
    ]


def test_row_3_aliases_and_a_path_made_absolute(ahma: str, workspace: Path) -> None:
    (workspace / "src").mkdir()
    assert argv(ahma, "git_status", short=True, branch=True, pathspec="src") == [
        "git",
        "status",
        "-b",
        "-s",
        f"{workspace}/src",
    ]


def test_row_4_a_file_argument_goes_through_a_temporary_file(
    ahma: str, workspace: Path
) -> None:
    message = "fix: bug\n\nlonger body"
    seen = printed(call(ahma, "git_commit", message=message, all=True))
    assert seen["argv"][:4] == ["git", "commit", "-a", "-F"]
    temp = seen["argv"][4]
    assert os.path.basename(temp).startswith(TEMP_FILE_PREFIX)
    assert seen["files"] == {temp: message}  # the exact text, no newline added
    assert not os.path.exists(temp)  # removed once the call is over


def test_row_5_git_log(ahma: str, workspace: Path) -> None:
    assert argv(
        ahma, "git_log", oneline=True, graph=True, rev_range="HEAD~3..HEAD"
    ) == [
        "git",
        "log",
        "--graph",
        "--oneline",
        "HEAD~3..HEAD",
    ]


def test_row_6_false_emits_nothing(ahma: str, workspace: Path) -> None:
    arguments = {"remote": "origin", "branch": "main", "force": True}
    assert argv(ahma, "git_push", **arguments, **{"set-upstream": False}) == [
        "git",
        "push",
        "--branch",
        "main",
        "-f",
        "--remote",
        "origin",
    ]


def test_row_7_find_through_sh_positionals_first(ahma: str, workspace: Path) -> None:
    arguments = {"path": ".", "-name": "*.rs", "-maxdepth": 2}
    assert argv(ahma, "file-tools_find", **arguments) == [
        "find",
        str(workspace),
        "-maxdepth",
        "2",
        "-name",
        "*.rs",
    ]


def test_row_81_an_array_gives_one_word_per_element_each_path_checked(
    ahma: str, workspace: Path
) -> None:
    (
        workspace / "src"
    ).mkdir()  # a path's folder must exist: only its last name may be new
    (workspace / "src" / "main.rs").write_text("")
    arguments: dict[str, object] = {
        "pattern": "TODO",
        "files": ["src/main.rs", "README.md"],
    }
    arguments |= {"ignore-case": True, "line-number": True}
    assert argv(ahma, "file-tools_grep", **arguments) == [
        "grep",
        "-i",
        "-n",
        "TODO",
        f"{workspace}/src/main.rs",
        f"{workspace}/README.md",
    ]
    result = call(ahma, "file-tools_grep", pattern="x", files=["a", "../b"])
    assert result.isError
    assert 'Path "../b" is outside the working directory' in result.text


def test_row_9_an_integer_ignores_its_alias(ahma: str, workspace: Path) -> None:
    assert argv(ahma, "file-tools_head", files=["Cargo.toml"], lines=5) == [
        "head",
        "--lines",
        "5",
        f"{workspace}/Cargo.toml",
    ]


def test_row_10_an_alias_that_reads_c(ahma: str, workspace: Path) -> None:
    arguments = {"files": ["new.txt"], "no-create": True}
    assert argv(ahma, "file-tools_touch", **arguments) == [
        "touch",
        "-c",
        f"{workspace}/new.txt",
    ]


def test_row_81_an_option_array_repeats_its_flag(
    ahma_raw: str, workspace: Path
) -> None:
    ignored = ["RUSTSEC-2020-0001", "RUSTSEC-2021-0002"]
    arguments = {"ignore": ignored, "args": ["--deny", "warnings"]}
    assert argv(ahma_raw, "cargo_audit", **arguments) == [
        "cargo",
        "audit",
        "--ignore",
        ignored[0],
        "--ignore",
        ignored[1],
        "--deny",
        "warnings",
    ]


def test_row_12_subcommand_word_and_args(ahma_raw: str, workspace: Path) -> None:
    (workspace / "scripts").mkdir()
    arguments = {"file": "scripts/run.py", "args": ["--x", "1"], "unbuffered": True}
    assert argv(ahma_raw, "python_script", **arguments) == [
        "python",
        "script",
        "--file",
        f"{workspace}/scripts/run.py",
        "--unbuffered",
        "--x",
        "1",
    ]


def test_row_13_multi_word_command_and_default(ahma: str, workspace: Path) -> None:
    arguments = {"directory": ".", "ai-fix": 1, "extensions": ["rs", "py"]}
    assert argv(ahma, "simplify", **arguments, html=False) == [
        "ahma-mcp",
        "simplify",
        "--ai-fix",
        "1",
        "--extensions",
        "rs",
        "--extensions",
        "py",
        str(workspace),
    ]


def test_row_14_nested_subcommand_and_unknown_key(ahma: str, workspace: Path) -> None:
    assert argv(ahma, "cargo_nextest_run", workspace=True, bogus="x") == [
        "cargo",
        "nextest",
        "run",
        "--workspace",
    ]


def test_row_15_working_directory_and_args(ahma_raw: str, workspace: Path) -> None:
    app = workspace / "app"
    app.mkdir()
    (app / "gradlew").symlink_to(Path(os.environ["PATH"].split(os.pathsep)[0]) / "git")
    arguments = {"working_directory": "app", "args": ["--stacktrace"]}
    seen = printed(call(ahma_raw, "kotlin_assembleDebug", **arguments))
    assert seen["argv"] == ["gradlew", "assembleDebug", "--stacktrace"]
    assert seen["cwd"] == str(app)


def test_row_89_the_unflattened_name_is_not_served(ahma: str, workspace: Path) -> None:
    with pytest.raises(UnknownToolError):
        call(ahma, "git", subcommand="status", short=True)


def test_row_86_booleans_are_checked_before_anything_runs(
    ahma: str, workspace: Path
) -> None:
    with pytest.raises(ToolInputError) as raised:
        call(ahma, "file-tools_ls", long=True, all="yes", path="src")
    assert raised.value.field == "all"
    assert argv(ahma, "file-tools_ls", long=True, all=False, path="src") == [
        "ls",
        "-l",
        f"{workspace}/src",
    ]


def test_row_18_a_path_outside_is_refused(ahma: str, workspace: Path) -> None:
    result = call(ahma, "file-tools_cat", files=["../etc/passwd"])
    assert result.isError
    assert result.text.startswith(
        f'Path "../etc/passwd" is outside the working directory "{workspace}"'
    )


def test_row_85_subcommand_names_with_underscores_are_callable(
    ahma: str, workspace: Path
) -> None:
    assert argv(ahma, "gh_pr_create", title="t") == ["gh", "pr_create", "--title", "t"]


def test_row_102_an_operand_that_looks_like_an_option_is_refused(
    ahma: str, ahma_raw: str, workspace: Path
) -> None:
    """``git log --output=FILE`` writes a file: as ``rev_range`` it would be read as
    the option, not as a revision range."""
    with pytest.raises(ToolInputError) as raised:
        call(ahma, "git_log", rev_range="--output=/tmp/elsewhere")
    assert raised.value.field == "rev_range"
    assert argv(ahma_raw, "git_log", rev_range="--output=x") == [
        "git",
        "log",
        "--output=x",
    ]
