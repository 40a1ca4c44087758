"""The minimal base a command gets, read from CPython's bytes behind ``os.environ``:
the same variables as walking ``os.environ``, changes made after start included."""

from __future__ import annotations

import os
import sys

import pytest
from mcigen_runtime.executors.child_env import BASE_NAMES, minimal_base


def _walked() -> dict[str, str]:
    return {
        name: value
        for name, value in os.environ.items()
        if name in BASE_NAMES or name.startswith("LC_")
    }


def test_the_minimal_base_follows_os_environ_as_it_is_now(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    undecodable = b"caf\xe9".decode(sys.getfilesystemencoding(), "surrogateescape")
    monkeypatch.setenv("LC_MCIGEN_TEST", undecodable)
    monkeypatch.setenv("TZ", "Europe/Paris")
    monkeypatch.setenv("NOT_BASE", "x")
    monkeypatch.delenv("HOME", raising=False)
    base = minimal_base()
    assert base == _walked()
    assert base["LC_MCIGEN_TEST"] == undecodable and base["TZ"] == "Europe/Paris"
    assert "HOME" not in base and "NOT_BASE" not in base


def test_an_environ_replaced_by_a_plain_mapping_is_walked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "environ", {"PATH": "/bin", "LC_ALL": "C", "SECRET": "s"})
    assert minimal_base() == {"PATH": "/bin", "LC_ALL": "C"}
