"""Readers: every input format becomes a :class:`~rankmeter.io.tables.Qrels` or :class:`~rankmeter.io.tables.Run`."""

from rankmeter.io.tables import Qrels, Run
from rankmeter.io.trec import read_qrels, read_run

__all__ = ["Qrels", "Run", "read_qrels", "read_run"]
