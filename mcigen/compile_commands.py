"""``mcigen build | check | list | envs | migrate``: the commands that read an
input with the compiler (the command line imports this module only when one of
them runs)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path

from mcigen_runtime.limits import DEFAULT
from mcigen_runtime.manifest import MANIFEST

from .build_watch import watch_builds
from .diagnostics import Diagnostics, printable
from .envs_command import run_envs
from .exit_status import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, usage_error
from .ir import RuntimePolicy
from .output import (
    OutputError,
    check_replaceable,
    diff_package,
    restore_interrupted_swap,
    write_package,
)
from .pipeline import CompileOptions, compile_schema, plan_schema
from .planner import McpAccess
from .planner.names import package_name_problem
from .tool_listing import listing

_CHECKED_NAME = "package"
"""The package ``check`` compiles when no DIR or --name names it."""


def _report(diagnostics: Diagnostics) -> None:
    if diagnostics.items:
        print(diagnostics.render(), file=sys.stderr)


def build(args: argparse.Namespace, schema: Path) -> int:
    if getattr(args, "watch", False):
        once = argparse.Namespace(**{**vars(args), "watch": False})
        return watch_builds(
            [(schema, Path(args.output))], lambda _: build(once, schema)
        )
    out_dir = Path(args.output)
    name = _package_name(args, out_dir)
    if name is None:
        return EXIT_USAGE
    try:
        restore_interrupted_swap(out_dir, name)
    except OutputError as error:
        return _output_failure(error)
    files, diagnostics = _compiled(args, schema, out_dir, name)
    if files is None:
        return EXIT_ERRORS
    if args.check:
        diff = diff_package(files, out_dir)
        sys.stdout.write(diff)
        return EXIT_ERRORS if diff else EXIT_OK
    try:
        write_package(files, out_dir, name)
    except OutputError as error:
        return _output_failure(error)
    if args.command == "build":  # serve's stdout may be its server's MCP stream
        _summarise(files, diagnostics, f"wrote {out_dir}")
    return EXIT_OK


def check(args: argparse.Namespace, schema: Path) -> int:
    """What ``_build`` does up to writing: the same refusals, all reported."""
    out_dir = None if args.output is None else Path(args.output)
    name = _package_name(args, out_dir)
    if name is None:
        return EXIT_USAGE
    files, diagnostics = _compiled(args, schema, out_dir or Path.cwd() / name, name)
    if out_dir is not None:
        try:
            check_replaceable(out_dir, name)
        except OutputError as error:
            return _output_failure(error)
    if files is None:
        return EXIT_ERRORS
    _summarise(files, diagnostics, "nothing written")
    return EXIT_OK


def _package_name(args: argparse.Namespace, out_dir: Path | None) -> str | None:
    """``--name``, else DIR's; None once its problem is reported."""
    if args.name:
        name = str(args.name)
    elif out_dir is not None:
        name = _default_name(out_dir, args.project)
    else:
        return _CHECKED_NAME
    problem = package_name_problem(name, out_dir)
    if problem is not None:
        print(
            printable(f"mcigen: error: {problem}; pass another --name"), file=sys.stderr
        )
        return None
    return name


def _compiled(
    args: argparse.Namespace, schema: Path, out_dir: Path, name: str
) -> tuple[dict[str, bytes] | None, Diagnostics]:
    """The package's files, as the options say (None when they cannot be made, or
    with ``--strict`` when there are warnings); every diagnostic reported."""
    options = dataclasses.replace(
        _reading(args),
        policy=_runtime_policy(args),
        vendor_runtime=(
            args.project if args.vendor_runtime is None else args.vendor_runtime
        ),
        project=args.project,
    )
    files, diagnostics = compile_schema(schema, out_dir, name, options)
    _report(diagnostics)
    if files is not None and args.strict and diagnostics.warnings:
        count = len(diagnostics.warnings)
        print(
            f"mcigen: error: --strict: {count} warning{'s' if count > 1 else ''}",
            file=sys.stderr,
        )
        return None, diagnostics
    return files, diagnostics


def _summarise(files: dict[str, bytes], diagnostics: Diagnostics, done: str) -> None:
    """The one line on stdout that says a build (or check) succeeded, and what it made."""
    manifest = min((path for path in files if path.split("/")[-1] == MANIFEST), key=len)
    tools = len(json.loads(files[manifest])["tools"])
    warnings = len(diagnostics.warnings)
    print(
        f"ok: {tools} tool{'' if tools == 1 else 's'}, "
        f"{warnings} warning{'' if warnings == 1 else 's'}; {done}",
        flush=True,
    )


def _default_name(out_dir: Path, project: bool) -> str:
    """DIR's basename; a project's (``my-tools``) with '-' as '_'."""
    name = out_dir.resolve().name
    return name.replace("-", "_") if project else name


def _output_failure(error: OutputError) -> int:
    print(printable(f"mcigen: error: {error}"), file=sys.stderr)
    return EXIT_ERRORS


def _reading(args: argparse.Namespace) -> CompileOptions:
    """What every command reads the schema with."""
    return CompileOptions(
        source_format=args.source_format,
        whitespace=args.whitespace,
        skip_invalid=args.skip_invalid,
        mcp=McpAccess(args.mcp_mode, announce=_say_started),
    )


def _say_started(message: str) -> None:
    print(printable(f"mcigen: {message}"), file=sys.stderr, flush=True)


def migrate(args: argparse.Namespace, schema: Path) -> int:
    from .migrate.command import migrate_paths
    from .migrate.targets import targets

    if not args.package.isidentifier():
        return usage_error(f"--package {args.package}: not an import name")
    package, diagnostics = plan_schema(schema, _reading(args))
    _report(diagnostics)
    if package is None:
        return EXIT_ERRORS
    tools = targets(package)
    return migrate_paths(args.paths, schema, args.package, tools, args.diff)


def envs(args: argparse.Namespace, schema: Path) -> int:
    package, diagnostics = plan_schema(schema, _reading(args))
    _report(diagnostics)
    if package is None:
        return EXIT_ERRORS
    return run_envs(args, schema, package)


def list_tools(args: argparse.Namespace, schema: Path) -> int:
    package, diagnostics = plan_schema(schema, _reading(args))
    _report(diagnostics)
    if package is None:
        return EXIT_ERRORS
    print(listing(schema, package, args.format))
    return EXIT_OK


def _runtime_policy(args: argparse.Namespace) -> RuntimePolicy:
    """What --limit, --file-env, --cli-env and --confine-cli decide."""
    limits = {name: size for name, size in args.limit if size != getattr(DEFAULT, name)}
    return RuntimePolicy(
        limits=tuple(sorted(limits.items())),
        file_env=tuple(sorted(set(args.file_env))),
        cli_env=args.cli_env,
        confine_cli=args.confine_cli,
    )
