"""The fields of an MTDF tool file: Ahma's structs (``config.rs`` at HEAD) plus the
fields the older MTDF guide documents, and the type each field must hold."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeGuard

U64_LIMIT = 2**64
I32_LIMIT = 2**31


def _is_integer(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_u64(value: object) -> bool:
    return _is_integer(value) and 0 <= value < U64_LIMIT


def _is_i32(value: object) -> bool:
    return _is_integer(value) and -I32_LIMIT <= value < I32_LIMIT


@dataclass(frozen=True)
class Scalar:
    """A JSON value the ``accepts`` test admits; ``expected`` names it in messages."""

    expected: str
    accepts: Callable[[object], bool]


STRING = Scalar("a string", lambda value: isinstance(value, str))
BOOL = Scalar("true or false", lambda value: isinstance(value, bool))
U64 = Scalar("a whole number from 0 to 2^64-1", _is_u64)
I32 = Scalar("a whole number from -2^31 to 2^31-1", _is_i32)
ANY = Scalar("any JSON value", lambda value: True)


@dataclass(frozen=True)
class Variants:
    """A string that must be one of ``names``."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class ListOf:
    item: Kind


@dataclass(frozen=True)
class MapOf:
    value: Kind


@dataclass(frozen=True)
class Field:
    kind: Kind
    required: bool = False
    nullable: bool = True
    """Whether ``null`` stands for an absent value (Rust's ``Option``)."""
    older_guide_only: bool = False
    """Documented by the older MTDF guide only: Ahma today rejects a file using it."""


@dataclass(frozen=True)
class Struct:
    title: str
    fields: dict[str, Field]
    aliases: dict[str, str] = field(default_factory=dict)
    """Other spellings of a field: alias -> field name."""
    open: bool = False
    """Whether keys that are not fields are allowed (Ahma's livelog structs)."""


Kind = Scalar | Variants | ListOf | MapOf | Struct

_SYNCHRONOUS_ALIASES = {"force_synchronous": "synchronous"}

AVAILABILITY_CHECK = Struct(
    "availability_check",
    {
        "command": Field(STRING),
        "args": Field(ListOf(STRING), nullable=False),
        "working_directory": Field(STRING),
        "success_exit_codes": Field(ListOf(I32)),
        "skip_subcommand_args": Field(BOOL, nullable=False),
    },
)

SEQUENCE_STEP = Struct(
    "sequence step",
    {
        "tool": Field(STRING, required=True, nullable=False),
        "subcommand": Field(STRING, required=True, nullable=False),
        "args": Field(MapOf(ANY), nullable=False),
        "description": Field(STRING),
        "skip_if_file_exists": Field(STRING),
        "skip_if_file_missing": Field(STRING),
    },
)

ITEMS = Struct(
    "items",
    {
        "type": Field(STRING, required=True, nullable=False),
        "format": Field(STRING),
        "description": Field(STRING),
    },
)

OPTION = Struct(
    "option",
    {
        "name": Field(STRING, required=True, nullable=False),
        "type": Field(STRING, required=True, nullable=False),
        "description": Field(STRING),
        "required": Field(BOOL),
        "format": Field(STRING),
        "items": Field(ITEMS),
        "file_arg": Field(BOOL),
        "file_flag": Field(STRING),
        "alias": Field(STRING),
        "enum": Field(ListOf(ANY), older_guide_only=True),
        "default": Field(ANY, older_guide_only=True),
        "pattern": Field(STRING, older_guide_only=True),
        "minItems": Field(U64, older_guide_only=True),
        "maxItems": Field(U64, older_guide_only=True),
    },
)

_SEQUENCE_FIELDS = {
    "sequence": Field(ListOf(SEQUENCE_STEP)),
    "step_delay_ms": Field(U64),
    "availability_check": Field(AVAILABILITY_CHECK),
    "install_instructions": Field(STRING),
}

SUBCOMMAND = Struct(
    "subcommand",
    {
        "name": Field(STRING, required=True, nullable=False),
        "description": Field(STRING, required=True, nullable=False),
        "options": Field(ListOf(OPTION)),
        "positional_args": Field(ListOf(OPTION)),
        "positional_args_first": Field(BOOL),
        "timeout_seconds": Field(U64),
        "synchronous": Field(BOOL),
        "enabled": Field(BOOL, nullable=False),
        "guidance_key": Field(STRING),
        **_SEQUENCE_FIELDS,
    },
    _SYNCHRONOUS_ALIASES,
)
# A subcommand holds subcommands: the struct refers to itself.
SUBCOMMAND.fields["subcommand"] = Field(ListOf(SUBCOMMAND))

HINTS = Struct(
    "hints",
    {
        "build": Field(STRING),
        "test": Field(STRING),
        "dependencies": Field(STRING),
        "clean": Field(STRING),
        "run": Field(STRING),
        "custom": Field(MapOf(STRING)),
        "default": Field(STRING, older_guide_only=True),
    },
)

LLM_PROVIDER = Struct(
    "llm_provider",
    {
        "base_url": Field(STRING, required=True, nullable=False),
        "model": Field(STRING, required=True, nullable=False),
        "api_key": Field(STRING),
    },
    open=True,
)

LIVELOG = Struct(
    "livelog",
    {
        "source_command": Field(STRING, required=True, nullable=False),
        "source_args": Field(ListOf(STRING), nullable=False),
        "detection_prompt": Field(STRING, required=True, nullable=False),
        "llm_provider": Field(LLM_PROVIDER, required=True, nullable=False),
        "chunk_max_lines": Field(U64, nullable=False),
        "chunk_max_seconds": Field(U64, nullable=False),
        "cooldown_seconds": Field(U64, nullable=False),
        "llm_timeout_seconds": Field(U64, nullable=False),
    },
    open=True,
)

TOOL = Struct(
    "tool",
    {
        "name": Field(STRING, required=True, nullable=False),
        "description": Field(STRING, required=True, nullable=False),
        "command": Field(STRING, required=True, nullable=False),
        "subcommand": Field(ListOf(SUBCOMMAND)),
        "input_schema": Field(ANY),
        "timeout_seconds": Field(U64),
        "synchronous": Field(BOOL),
        "hints": Field(HINTS, nullable=False),
        "enabled": Field(BOOL, nullable=False),
        "guidance_key": Field(STRING),
        **_SEQUENCE_FIELDS,
        "monitor_level": Field(STRING),
        "monitor_stream": Field(STRING),
        "tool_type": Field(Variants(("command", "livelog"))),
        "livelog": Field(LIVELOG),
        # mcigen's own fields (Ahma rejects them): a call's `args` reach the
        # command only when true, as Ahma always passes them; `format: path`
        # values are passed as names (Ahma's form) rather than descriptor paths
        "allow_raw_args": Field(BOOL),
        "paths_by_name": Field(BOOL),
    },
    _SYNCHRONOUS_ALIASES,
)
