"""Fixtures of the templating tests: one mci-py process for the whole session."""

from __future__ import annotations

import pytest

from ..oracle import OracleSession, oracle_session


@pytest.fixture(scope="session")
def oracle() -> OracleSession:
    """The shared persistent mci-py oracle (closed when the test process exits)."""
    return oracle_session()
