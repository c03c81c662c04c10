"""The Spark session of the Spark test modules: one real ``local[2]`` session per module."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def spark():
    from rankmeter.spark import local_session

    session = local_session("local[2]", partitions=4)
    yield session
    session.stop()
