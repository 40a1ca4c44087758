"""What a ``--project`` package carries of the schema's directory: the files its
file tools read and the directories its cli tools run in, copied into the package
as ``_data/`` (package data), which the package takes for the schema's directory.
An installed project then runs from any directory with no ``MCIGEN_BASE_DIR``
(which still overrides it).

Carried, with their relative paths kept:

- a file tool's path without placeholders: that file;
- a file tool's path with placeholders, and a cli tool's ``cwd``: the directory its
  text before the first placeholder names (``runbooks/{{props.file}}``:
  ``runbooks/``; ``{{props.dir}}``: the schema's directory), with the tool's relative
  ``directoryAllowList`` entries when it reads by placeholder.

A directory is copied with its regular files at any depth, leaving out hidden
entries (``.git``), ``__pycache__``, generated packages and the project being built.
Only what lies inside the schema's directory, symlinks resolved, is carried (the
package would refuse the rest anyway); the rest, and a directory over the bounds,
stays behind with a warning naming ``MCIGEN_BASE_DIR``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import Template, Text

from .. import ir
from ..diagnostics import Diagnostics, Location, quoted
from ..marker import MARKER

DATA_DIR = "_data"
"""The package's copy of the schema's directory: its way from the package."""
KEEP = f"{DATA_DIR}/.mcigen-data"
"""A file that makes ``_data/`` exist in the wheel when nothing else is carried:
relative paths that name nothing carried must fail as missing files, not as a
missing schema directory."""
_KEEP_TEXT = (
    b"The files this package's tools read, copied from the schema's directory by "
    b"mcigen build --project.\n"
)
MAX_FILES = 10_000
MAX_BYTES = 64 * 1024 * 1024
"""What one project may carry in all."""
_SKIPPED = frozenset({"__pycache__"})
_EMPTY = "holds no file that travels (and a wheel holds no empty directory)"


@dataclass
class _Carrier:
    schema_dir: str
    """Resolved."""
    project_dir: str
    """Resolved: never carried into itself."""
    diagnostics: Diagnostics
    files: dict[str, bytes] = field(default_factory=dict)
    size: int = 0

    def carry_file(self, relative: str, tool: str, location: Location) -> None:
        inside = self._inside(relative, tool, location)
        if inside is not None and os.path.isfile(inside):
            self._add([relative], tool, location, relative)

    def carry_directory(self, relative: str, tool: str, location: Location) -> None:
        inside = self._inside(relative, tool, location)
        if inside is None or not os.path.isdir(inside):
            return
        found: list[str] = []
        for folder, folders, names in os.walk(inside):
            folders[:] = sorted(
                name for name in folders if self._walks(os.path.join(folder, name))
            )
            for name in sorted(names):
                path = os.path.join(folder, name)
                if (
                    not name.startswith(".")
                    and os.path.isfile(path)  # never a FIFO, which would block
                    and self._lies_inside(path)
                ):
                    found.append(os.path.relpath(path, self.schema_dir))
            if len(found) > MAX_FILES:
                break
        shown = relative or os.curdir
        if not found:
            self._stays(tool, shown, location, _EMPTY)
            return
        self._add(found, tool, location, shown)

    def _inside(self, relative: str, tool: str, location: Location) -> str | None:
        """The path of ``relative`` in the schema's directory; None when it names
        nothing there (a warning when it lies outside)."""
        if os.path.isabs(relative):  # names the same path wherever the package runs
            return None
        path = os.path.normpath(os.path.join(self.schema_dir, relative))
        if not os.path.lexists(path):  # a missing static file is warned of already
            return None
        if not self._lies_inside(path):
            self._stays(tool, relative, location, "lies outside the schema's directory")
            return None
        return path

    def _walks(self, folder: str) -> bool:
        name = os.path.basename(folder)
        return (
            not name.startswith(".")
            and name not in _SKIPPED
            and not os.path.islink(folder)
            and os.path.realpath(folder) != self.project_dir
            and not os.path.exists(os.path.join(folder, MARKER))
        )

    def _lies_inside(self, path: str) -> bool:
        real = os.path.realpath(path)
        return real == self.schema_dir or real.startswith(self.schema_dir + os.sep)

    def _add(self, found: list[str], tool: str, location: Location, shown: str) -> None:
        new = [path for path in found if _key(path) not in self.files]
        sizes = [os.path.getsize(os.path.join(self.schema_dir, path)) for path in new]
        if len(self.files) + len(new) > MAX_FILES or self.size + sum(sizes) > MAX_BYTES:
            self._stays(
                tool,
                shown,
                location,
                f"would take the project over {MAX_FILES} files or "
                f"{MAX_BYTES // (1024 * 1024)} MiB",
            )
            return
        for path, size in zip(new, sizes, strict=True):
            self.files[_key(path)] = Path(self.schema_dir, path).read_bytes()
            self.size += size

    def _stays(self, tool: str, shown: str, location: Location, why: str) -> None:
        self.diagnostics.warning(
            location,
            f"tool {quoted(tool)} uses {quoted(shown)}, which {why}: it is not carried into the "
            "project, so an installed copy finds it only in the directory "
            "MCIGEN_BASE_DIR names",
        )


def carried_files(
    package: ir.Package, schema_dir: Path, project_dir: Path
) -> tuple[dict[str, bytes], Diagnostics]:
    """``_data/...`` for what the package's file and cli tools read, keyed by path
    in the package; warnings for what stays behind."""
    carrier = _Carrier(
        os.path.realpath(schema_dir), os.path.realpath(project_dir), Diagnostics()
    )
    takes_paths = False
    for planned in package.tools:
        tool, execution = planned.tool, planned.tool.execution
        if isinstance(execution, ir.FileExecution):
            template, location = execution.path.template, execution.path.location
        elif isinstance(execution, ir.CliExecution) and execution.templated:
            takes_paths = True
            if execution.cwd is None:  # runs where it is called from
                continue
            template, location = parse_template(execution.cwd), tool.location
        else:
            continue
        takes_paths = True
        static, prefix = _static_prefix(template)
        if not static:
            carrier.carry_directory(os.path.dirname(prefix), tool.name, location)
            if not planned.path_policy.enable_any_paths:
                for entry in planned.path_policy.directory_allow_list:
                    carrier.carry_directory(entry, tool.name, location)
        elif isinstance(execution, ir.FileExecution):
            carrier.carry_file(prefix, tool.name, location)
        else:
            carrier.carry_directory(prefix, tool.name, location)
    if takes_paths:
        carrier.files.setdefault(KEEP, _KEEP_TEXT)
    return dict(sorted(carrier.files.items())), carrier.diagnostics


def _static_prefix(template: Template) -> tuple[bool, str]:
    """Whether ``template`` is plain text, and its text before the first
    placeholder."""
    prefix: list[str] = []
    for node in template.nodes:
        if not isinstance(node, Text):
            return False, "".join(prefix)
        prefix.append(node.value)
    return True, "".join(prefix)


def _key(relative: str) -> str:
    return f"{DATA_DIR}/{Path(os.path.normpath(relative)).as_posix()}"
