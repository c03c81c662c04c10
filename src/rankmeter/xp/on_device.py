"""Dense rows of torch, JAX or CuPy arrays evaluated on their device into the usual :class:`EvaluationResult`.

Blocks of rows are ranked and measured with the arrays' own namespace
(:mod:`rankmeter.xp.ranking`, :mod:`rankmeter.xp.kernels`); only the
per-row values, relevant counts and tie flags of each block -- a few numbers
per row -- come back to NumPy, where the empty-query policy and the means
are applied exactly as :func:`rankmeter.pipeline.evaluate_ranked` does.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from rankmeter._version import __version__
from rankmeter.aggregate import aggregate_column, apply_empty_policy, check_empty_policy
from rankmeter.core.semantics import Semantics
from rankmeter.errors import MeasureSyntaxError
from rankmeter.io.exclude import is_sparse, removed_items
from rankmeter.io.foreign import host_array
from rankmeter.measures import FAMILIES, Measure, traits_of
from rankmeter.results import EvaluationResult
from rankmeter.xp.arrays import Placement, checked_rows, removal_counts_on_device, working_dtype
from rankmeter.xp.kernels import KERNELS, Kernels, unsupported
from rankmeter.xp.ranking import POLICIES, RankedRows

BLOCK_ITEMS = 1 << 22
"""Items (rows x columns) ranked at a time: the temporaries of a block are ~32 MB each in float64."""


FORCE_VARIABLE = "RANKMETER_ARRAY_API"
"""Environment variable: ``device`` runs the array-API kernels for CPU arrays too (how the tests check them)."""


def route(where: Placement, measures: list[Measure], ties: str, sample_weight: Any = None) -> dict[str, Any]:
    """Where a call on foreign arrays is computed: ``metadata['array_api']``, whose ``path`` is

    * ``device``: the array-API kernels, on the arrays' device;
    * ``numpy-view``: CPU arrays, which NumPy views without a copy, go to the
      tuned NumPy kernels (faster on a CPU); ``RANKMETER_ARRAY_API=device``
      sends them to the array-API kernels instead;
    * ``host``: the call needs NumPy (``why`` says which part); the arrays are
      copied to the host once.
    """
    out: dict[str, Any] = {"namespace": where.library, "device": where.device_name, "path": "device"}
    why = None
    if where.xp is None:
        why = "array-api-compat is not installed: NumPy reads the CPU arrays"
    elif ties not in POLICIES:
        why = f"ties={ties!r} draws NumPy's random order"
    elif sample_weight is not None:
        why = "sample_weight is applied on the host"
    else:
        why = next((reason for reason in map(unsupported, measures) if reason), None)
    if why is not None:
        out.update(path="numpy-view" if where.on_cpu else "host", why=why)
    elif where.on_cpu and os.environ.get(FORCE_VARIABLE, "") != "device":
        out.update(path="numpy-view", why="CPU arrays: NumPy views them without a copy")
    return out


Array = Any
Block = tuple[Any, Any, Any]
"""One block of rows on the device: (grades, scores, valid), each of shape (rows, list_size)."""


def evaluate_on_device(
    where: Placement,
    y_true: Any,
    y_score: Any,
    mask: Any,
    measures: list[Measure],
    semantics: Semantics,
    metadata: dict[str, Any],
    exclude: Any = None,
) -> EvaluationResult:
    """Evaluate dense rows where they live (see :func:`rankmeter.evaluate_arrays`).

    ``exclude=`` (a ``scipy.sparse`` matrix or a boolean array, True:
    removed) is read on the host and joins the mask on the device; the
    counts of removed items go to ``metadata`` as on the host path.
    """
    check_empty_policy(semantics.empty)
    t, s, valid = checked_rows(where, y_true, y_score, mask)
    n, m = (int(d) for d in t.shape)
    if exclude is not None:
        gone = removed_items(None, exclude if is_sparse(exclude) else host_array(exclude), (n, m))
        valid = where.xp.logical_and(valid, where.asarray(gone.keep_matrix()))
    if mask is not None or exclude is not None:
        metadata.update(removal_counts_on_device(where, t, valid))
    step = max(1, BLOCK_ITEMS // max(m, 1))
    blocks = ((t[a : a + step], s[a : a + step], valid[a : a + step]) for a in range(0, n, step))
    lengths = where.to_host(where.xp.sum(where.xp.astype(valid, where.xp.int32), axis=1)) if n else np.zeros(0)
    # a list with no items (fully masked) has nothing to evaluate: weight 0, as keras-rs gives it
    weights = (lengths > 0).astype(np.float64) if (lengths == 0).any() else None
    return evaluate_blocks(where, blocks, n, measures, semantics, metadata, weights)


def evaluate_blocks(
    where: Placement,
    blocks: Iterable[Block],
    n: int,
    measures: list[Measure],
    semantics: Semantics,
    metadata: dict[str, Any],
    weights: np.ndarray | None = None,
) -> EvaluationResult:
    """Rank and measure each block of rows on the device; empty-query policy, means and metadata on the host.

    ``n`` is the total number of rows; ``weights`` (per row) weigh the means.
    """
    ties, empty = semantics.tie_policy, semantics.empty
    check_empty_policy(empty)
    xp, dtype = where.xp, working_dtype(where)
    singles = _columns(measures)
    keys = sorted({_count_key(single) for _, single in singles} | {None}, key=str)
    cutoffs = sorted({k for mm in measures for k in mm.cutoffs or ()})
    rprec = [mm.param("min_rel") for mm in measures if traits_of(mm).cut_at_relevant]
    measure = _block_function(
        where.library, xp, dtype, tuple(measures), ties, tuple(keys), tuple(cutoffs), tuple(rprec)
    )
    parts: list[tuple[np.ndarray, dict[Any, np.ndarray], np.ndarray, np.ndarray]] = []
    for t, s, valid in blocks:
        values, counts, tied, straddle = (where.to_host(x) for x in measure(t, s, valid))
        parts.append((values, {key: counts[:, i] for i, key in enumerate(keys)}, tied, straddle))
    values = np.concatenate([p[0] for p in parts]) if parts else np.zeros((0, len(singles)))
    counts = {key: np.concatenate([p[1][key] for p in parts]) if parts else np.zeros(0) for key in keys}
    query_ids = np.arange(n).astype(str)
    names: list[str] = []
    columns, included, aggregate = [], [], {}
    for c, (family, single) in enumerate(singles):
        name = str(single)
        if name in aggregate:
            continue
        col = values[:, c]
        kept, inc = apply_empty_policy(
            col,
            (counts[_count_key(single)] == 0) | np.isnan(col),
            empty,
            is_count=FAMILIES[family].empty_exempt,
            query_ids=query_ids,
            measure_name=name,
        )
        names.append(name)
        columns.append(kept)
        included.append(inc)
        aggregate[name] = aggregate_column(kept, inc, weights=weights, kind=FAMILIES[family].aggregate)
    tied = np.concatenate([p[2] for p in parts]) if parts else np.zeros(0, dtype=bool)
    straddles = np.concatenate([p[3] for p in parts]) if parts else np.zeros(0, dtype=bool)
    meta: dict[str, Any] = {
        "rankmeter_version": __version__,
        "measures": names,
        "ties": ties,
        "empty": empty,
        "queries_evaluated": n,
        "queries_empty": int((counts[None] == 0).sum()),
        "queries_with_ties": int(tied.sum()),
        "queries_with_ties_at_cutoff": int(straddles.sum()),
        "weighted": weights is not None,
        **metadata,
        "array_api": {"namespace": where.library, "device": where.device_name, "path": "device"},
    }
    out_values = np.stack(columns, axis=1) if columns else np.zeros((n, 0))
    out_included = np.stack(included, axis=1) if included else np.zeros((n, 0), dtype=bool)
    return EvaluationResult(query_ids, names, out_values, out_included, aggregate, meta)


@functools.lru_cache(maxsize=32)
def _block_function(
    library: str,
    xp: Any,
    dtype: Any,
    measures: tuple[Measure, ...],
    ties: str,
    keys: tuple[float | None, ...],
    cutoffs: tuple[int, ...],
    rprec: tuple[float | None, ...],
) -> Callable[[Array, Array, Array], tuple[Array, Array, Array, Array]]:
    """The computation of one block: ``(grades, scores, valid) -> (values, relevant counts, tied, straddling)``.

    Under JAX it is compiled once per shape (``jax.jit``): eagerly, every
    operation would be compiled on its own.
    """

    def block(t: Array, s: Array, valid: Array) -> tuple[Array, Array, Array, Array]:
        grades = xp.astype(t, dtype)
        rows = RankedRows(xp, s, valid, grades, ties)
        ranked = xp.where(rows.valid, rows.take(grades), xp.zeros_like(grades))
        ideal = xp.where(valid, grades, xp.full_like(grades, -float("inf")))
        k = Kernels(rows, ranked, ideal)
        values = xp.concat([KERNELS[str(traits_of(mm).array_api)](k, mm) for mm in measures], axis=1)
        counts = xp.concat([k.num_relevant(key) for key in keys], axis=1)
        per_row = [xp.astype(k.num_relevant(r), rows.index) for r in rprec]
        return values, counts, rows.tied_rows(), rows.straddles(list(cutoffs), per_row)

    if library == "jax":
        import jax

        return jax.jit(block)  # type: ignore[no-any-return]
    return block


def _columns(measures: list[Measure]) -> list[tuple[str, Measure]]:
    """(family, single-cutoff measure) of every column the kernels return, in their order."""
    out: list[tuple[str, Measure]] = []
    seen: dict[str, Measure] = {}
    for mm in measures:
        for single in mm.expand():
            if seen.setdefault(str(single), single) != single:
                raise MeasureSyntaxError(
                    f"two different measures are both named {str(single)!r} (callables with the same __name__?); "
                    "give each callable a distinct name"
                )
            out.append((mm.family, single))
    return out


def _count_key(single: Measure) -> float | None:
    """The relevance threshold whose count of relevant items decides whether a row is empty for ``single``."""
    return None if traits_of(single).graded else single.param("min_rel")
