"""The records of the request and call lines, which ``edge.logs`` copies from one it
made before rather than building each: what a formatter of the user's reads in them
(the time, the thread, the process) is each record's own, and a record factory of
the user's still makes every record."""

from __future__ import annotations

import io
import itertools
import logging
import os
import threading
import time
from collections.abc import Iterator

import pytest
from mcigen_runtime.edge import logs

FORMAT = "%(created)f %(relativeCreated)d %(threadName)s %(process)d %(message)s"


@pytest.fixture
def written() -> Iterator[io.StringIO]:
    """The request logger's lines, formatted by a plain ``logging.Formatter``."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter(FORMAT))
    logger = logs.request_logger
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield out
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


def lines(out: io.StringIO) -> list[list[str]]:
    return [line.split() for line in out.getvalue().splitlines()]


def test_each_record_has_its_own_time_thread_and_process(
    written: io.StringIO,
) -> None:
    before = time.time()
    logs._info(logs.request_logger, "request", {})
    middle = time.time() + 0.01
    while time.time() < middle:  # two records a measurable time apart
        pass
    logs._info(logs.request_logger, "request", {})
    thread = threading.Thread(
        target=logs._info,
        args=(logs.request_logger, "request", {}),
        name="another-thread",
    )
    thread.start()
    thread.join()
    first, second, third = lines(written)
    assert before <= float(first[0]) < middle <= float(second[0]) <= time.time()
    assert int(second[1]) - int(first[1]) >= 9
    assert [first[2], second[2], third[2]] == [
        threading.current_thread().name,
        threading.current_thread().name,
        "another-thread",
    ]
    assert {first[3], second[3], third[3]} == {str(os.getpid())}


def test_a_record_factory_of_ones_own_makes_every_record(
    written: io.StringIO,
) -> None:
    numbers = itertools.count()
    default = logging.getLogRecordFactory()

    def numbered(*args: object, **kwargs: object) -> logging.LogRecord:
        record = default(*args, **kwargs)
        record.msg = f"{record.msg}-{next(numbers)}"
        return record

    logging.setLogRecordFactory(numbered)
    try:
        logs._info(logs.request_logger, "request", {})
        logs._info(logs.request_logger, "request", {})
    finally:
        logging.setLogRecordFactory(default)
    assert [line[-1] for line in lines(written)] == ["request-0", "request-1"]
