r"""Embeddings and binary codes of torch, JAX or CuPy evaluated on their device (:func:`rankmeter.evaluate_vectors`).

Each block of queries gets its scores against the whole database and its
grades from the labels by matrix products on the device, then goes through
the dense kernels (:func:`rankmeter.xp.on_device.evaluate_blocks`), the
database index playing the column:

* ``hamming`` on {-1, +1} codes: :math:`d = (b - q \cdot x) / 2`; on {0, 1}
  codes: :math:`d = q \cdot (1 - x) + (1 - q) \cdot x` (exact integers);
  the score is :math:`-d`;
* ``cosine``: :math:`\hat q \cdot \hat x` with rows divided by their norms
  (zero rows stay zero); ``euclidean``: :math:`\min(2 q \cdot x - |q|^2 - |x|^2, 0)`;
  ``inner``: :math:`q \cdot x` -- the operations of
  :func:`rankmeter.vectors.distances.score_block`, in its order;
* grades: ``shared_labels`` :math:`l_q \cdot l_x`, ``any_shared``
  :math:`[l_q \cdot l_x > 0]`, class-index vectors: class equality.

Inputs this path does not cover (bit-packed codes, callables, one-hot
``same_class`` matrices, radius measures) are left to the NumPy path, which
also names their errors: :func:`prepare` returns why.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rankmeter.core.semantics import Semantics
from rankmeter.errors import InputFormatError, InvalidScoreError
from rankmeter.measures import Measure
from rankmeter.results import EvaluationResult
from rankmeter.xp.arrays import Placement, as_rows, working_dtype
from rankmeter.xp.on_device import BLOCK_ITEMS, Block, evaluate_blocks

Array = Any


def _codes_form(where: Placement, a: Array) -> str | None:
    """``pm1`` or ``binary`` when every value of ``a`` is in {-1, 1} or {0, 1}, else None."""
    xp = where.xp
    if bool(xp.all(xp.logical_or(a == 1, a == -1))):
        return "pm1"
    if bool(xp.all(xp.logical_or(a == 0, a == 1))):
        return "binary"
    return None


def _finite(where: Placement, a: Array, name: str) -> None:
    xp = where.xp
    if not xp.isdtype(a.dtype, "real floating"):
        return
    bad = xp.logical_not(xp.isfinite(a))
    if bool(xp.any(bad)):
        rows, cols = xp.nonzero(bad)
        row, col = int(rows[0]), int(cols[0])
        raise InvalidScoreError(f"{name}[{row}, {col}] is {float(a[row, col])}; features must be finite numbers")


class DeviceVectors:
    """Validated features or codes and labels on the device; yields blocks of (grades, scores, valid)."""

    def __init__(self, where: Placement, q: Array, d: Array, ql: Array, dl: Array, metric: str, form: str) -> None:
        self.where, self.metric, self.form = where, metric, form
        xp = where.xp
        self.dtype = working_dtype(where)
        self.q, self.d = xp.astype(q, self.dtype), xp.astype(d, self.dtype)
        self.ql, self.dl = ql, dl
        if metric == "cosine":
            self.q, self.d = self._normalised(self.q), self._normalised(self.d)
        if metric == "euclidean":
            self.q_sq, self.d_sq = xp.sum(self.q * self.q, axis=1), xp.sum(self.d * self.d, axis=1)

    def _normalised(self, a: Array) -> Array:
        xp = self.where.xp
        norms = xp.sqrt(xp.sum(a * a, axis=1, keepdims=True))
        positive = norms > 0
        return xp.where(positive, a / xp.where(positive, norms, xp.ones_like(norms)), xp.zeros_like(a))

    def scores(self, a: int, b: int) -> Array:
        """Scores of queries a:b against the database (higher first)."""
        xp = self.where.xp
        q, dt = self.q[a:b], xp.matrix_transpose(self.d)
        if self.metric == "hamming":
            if self.form == "pm1":
                return -((float(self.q.shape[1]) - q @ dt) / 2.0)
            return -(q @ (1.0 - dt) + (1.0 - q) @ dt)
        out = q @ dt
        if self.metric == "euclidean":
            out = out * 2.0 - self.q_sq[a:b, None] - self.d_sq[None, :]
            out = xp.minimum(out, xp.zeros_like(out))
        return out

    def grades(self, a: int, b: int, relevance: str) -> Array:
        """Grades of queries a:b against the database from the labels."""
        xp = self.where.xp
        if self.ql.ndim == 1:
            return xp.astype(self.ql[a:b, None] == self.dl[None, :], self.dtype)
        shared = xp.astype(self.ql[a:b], self.dtype) @ xp.matrix_transpose(xp.astype(self.dl, self.dtype))
        return xp.astype(shared > 0, self.dtype) if relevance == "any_shared" else shared

    def blocks(self, relevance: str, exclude_self: bool, batch: int) -> Iterator[Block]:
        xp = self.where.xp
        n_q, n_d = int(self.q.shape[0]), int(self.d.shape[0])
        columns = xp.arange(n_d, device=self.where.device)
        for a in range(0, n_q, batch):
            b = min(a + batch, n_q)
            rows = xp.arange(a, b, device=self.where.device)
            if exclude_self:
                valid = columns[None, :] != rows[:, None]  # query i leaves database item i out (i < n_database)
            else:
                valid = xp.ones((b - a, n_d), dtype=xp.bool, device=self.where.device)
            yield self.grades(a, b, relevance), self.scores(a, b), valid


def prepare(
    where: Placement, queries: Any, database: Any, query_labels: Any, database_labels: Any, metric: str, codes: str,
    relevance: Any,
) -> DeviceVectors | str:  # fmt: skip
    """The inputs on the device, or why the NumPy path must take them (it then names any error)."""
    if not isinstance(relevance, str):
        return "a callable relevance works on NumPy arrays"
    q, d = as_rows(where, queries, "queries"), as_rows(where, database, "database")
    ql, dl = where.asarray(query_labels), where.asarray(database_labels)
    if int(d.shape[0]) == 0:
        raise InputFormatError("database is empty: nothing to rank")
    if q.shape[1] != d.shape[1] or ql.shape[0] != q.shape[0] or dl.shape[0] != d.shape[0] or ql.ndim != dl.ndim:
        return "the shapes need the NumPy path's checks"
    if ql.ndim == 2 and (relevance == "same_class" or ql.shape[1] != dl.shape[1]):
        return "one-hot same_class labels are read on the host"
    if ql.ndim not in (1, 2):
        return "labels must be vectors or matrices"
    form = ""
    if metric == "hamming":
        if codes == "packed":
            return "bit-packed codes are read on the host"
        fq, fd = _codes_form(where, q), _codes_form(where, d)
        if fq is None or fq != fd or (codes != "auto" and codes != fq):
            return "these codes are read on the host"
        form = fq
    else:
        _finite(where, q, "queries")
        _finite(where, d, "database")
    return DeviceVectors(where, q, d, ql, dl, metric, form)


def evaluate_vectors_on_device(
    data: DeviceVectors,
    measures: list[Measure],
    semantics: Semantics,
    *,
    relevance: str,
    exclude_self: bool,
    batch_size: int | None,
    metadata: dict[str, Any],
) -> EvaluationResult:
    """Evaluate every query against the whole database on the device (see :func:`rankmeter.evaluate_vectors`)."""
    n_q, n_d = int(data.q.shape[0]), int(data.d.shape[0])
    batch = int(batch_size) if batch_size is not None else max(1, BLOCK_ITEMS // n_d)
    meta = {
        **metadata,
        "input": "vectors",
        "metric": data.metric,
        "relevance": relevance,
        "exclude_self": bool(exclude_self),
        "n_database": n_d,
        "batch_size": batch,
        "paths": {str(m): "device" for m in measures},
    }
    if data.metric == "hamming":
        meta.update(bits=int(data.q.shape[1]), codes=data.form)
    blocks = data.blocks(relevance, exclude_self, batch)
    return evaluate_blocks(data.where, blocks, n_q, measures, semantics, meta)
