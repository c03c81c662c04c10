"""The evaluation options as one value: what an entry point reads besides the measures and the semantics.

:class:`EvaluationOptions` holds the table column names, the threads, worker
processes and progress bar, the (user, item) pairs removed or kept, the
segments and the side information of the beyond-accuracy measures. Every
entry point (:func:`rankmeter.evaluate`, :func:`~rankmeter.evaluate_stream`,
:func:`~rankmeter.evaluate_arrays`, :func:`~rankmeter.evaluate_lists`,
:func:`~rankmeter.evaluate_diversity`, :func:`rankmeter.spark.evaluate`,
:func:`rankmeter.dask.evaluate`) takes one value as ``options=``
(:func:`~rankmeter.compare` as ``evaluate_options=``) or the fields it reads
as keyword arguments, beside the :class:`~rankmeter.Semantics` fields. Each
option name is declared once for the type checker, in a one-field
``TypedDict``; the keyword set of each entry point (:class:`EvaluationKeywords`,
:class:`StreamKeywords`, ...) combines those it reads.

Examples
--------
>>> opts = EvaluationOptions(exclude={"u1": ["b"]}, threads=2)
>>> opts.threads, opts.given()
(2, ('threads', 'exclude'))
>>> EvaluationOptions(threads=0)
Traceback (most recent call last):
...
rankmeter.errors.PolicyError: threads must be a positive integer or None, got 0
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

import numpy as np

from rankmeter.core.semantics import FIELDS as SEMANTICS_FIELDS
from rankmeter.core.semantics import SemanticsOptions
from rankmeter.errors import PolicyError

V = TypeVar("V")


@dataclass(frozen=True, eq=False)
class EvaluationOptions:
    """What an evaluation reads besides its measures and :class:`~rankmeter.Semantics`.

    Each entry point reads the fields that apply to its input (its docstring
    lists them); a field set for an entry point that cannot use it is an
    error, never silently ignored.

    Parameters
    ----------
    qrels_columns, run_columns : mapping, optional
        Column renames for table input, e.g. ``{"query_id": "qid"}``.
    threads : int, optional
        Threads for runs of a million rows or more, each ranking a block of
        queries (default: one per CPU, at most 8; 1: one thread). Values do
        not depend on it.
    workers : int, optional
        For several runs: processes, each evaluating one run at a time
        (default: ``threads`` when given, else one per CPU; 1: the runs one
        after the other in this process). Small runs are evaluated in this
        process. Where processes are spawned rather than forked (Windows,
        macOS) the default is 1: spawned workers import the calling script
        again, so pass ``workers=`` from a script whose top level is guarded
        by ``if __name__ == "__main__":``. Values do not depend on it.
    progress : bool, optional
        Show a progress bar on stderr (default: for large inputs when stderr
        is a terminal).
    exclude : table, dict, path or Qrels, optional
        (user, item) pairs removed from every ranking and from the ideal,
        typically the training interactions: a table ``user_id, item_id``,
        ``{user: [item, ...]}``, a file, or :func:`rankmeter.interactions`
        (for dense input: a boolean matrix or sparse matrix of the scores'
        shape, or one list of item columns per row).
    candidates : table, dict, path or Qrels, optional
        The items each user's ranking is restricted to (for example one
        positive and 100 sampled negatives); only they are ranked and judged.
        With ``exclude``, the candidates less the excluded pairs. The choice
        is recorded as ``metadata["semantics"]["candidates"]`` and what it
        removed as ``metadata["candidates"]``.
    group_by : mapping, table, str, path or GroupBy, optional
        The segment of each query (user): ``{query_id: segment}``, a table
        with query id and segment columns, the name of a column of the qrels
        or run table, a sequence with one segment per row (dense and ragged
        input), or a :class:`rankmeter.GroupBy`. Each measure is then also
        aggregated per segment (:meth:`EvaluationResult.by_group`,
        ``metadata["groups"]``).
    items : rankmeter.Items, optional
        Side information for the beyond-accuracy measures (``novelty@10``,
        ``ild@10``, ``gini@10``, ...; docs/beyond-accuracy.md): training
        interactions, item features, catalogue, item groups; recorded as
        ``metadata["items"]``.

    Notes
    -----
    The value is frozen; :meth:`replace` gives a changed copy. It compares by
    identity, since its fields may be tables.
    """

    qrels_columns: Mapping[str, str] | None = None
    run_columns: Mapping[str, str] | None = None
    threads: int | None = None
    workers: int | None = None
    progress: bool | None = None
    exclude: Any = None
    candidates: Any = None
    group_by: Any = None
    items: Any = None

    def __post_init__(self) -> None:
        for name in ("threads", "workers"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1):
                raise PolicyError(f"{name} must be a positive integer or None, got {value!r}")
        if self.progress is not None and not isinstance(self.progress, bool | np.bool_):
            raise PolicyError(f"progress must be True, False or None, got {self.progress!r}")
        for name in ("qrels_columns", "run_columns"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Mapping):
                raise PolicyError(f"{name} must be a mapping of column names, got {type(value).__name__}")

    def replace(self, **changes: Any) -> EvaluationOptions:
        """A copy with some fields changed (validated again).

        >>> EvaluationOptions(threads=2).replace(workers=3).workers
        3
        """
        unknown = sorted(set(changes) - OPTION_FIELDS)
        if unknown:
            raise TypeError(
                f"unknown evaluation option {unknown[0]!r}; the options are {', '.join(sorted(OPTION_FIELDS))}"
            )
        return dataclasses.replace(self, **changes)

    def given(self) -> tuple[str, ...]:
        """The names of the fields that are set (not None), in declaration order.

        >>> EvaluationOptions(group_by="segment").given()
        ('group_by',)
        """
        return tuple(f.name for f in dataclasses.fields(self) if getattr(self, f.name) is not None)


OPTION_FIELDS = frozenset(f.name for f in dataclasses.fields(EvaluationOptions))
"""The names of :class:`EvaluationOptions`' fields."""


class _Columns(TypedDict, total=False):
    qrels_columns: Mapping[str, str] | None
    run_columns: Mapping[str, str] | None


class _Threads(TypedDict, total=False):
    threads: int | None


class _Workers(TypedDict, total=False):
    workers: int | None


class _Progress(TypedDict, total=False):
    progress: bool | None


class _Exclude(TypedDict, total=False):
    exclude: Any


class _Candidates(TypedDict, total=False):
    candidates: Any


class _GroupBy(TypedDict, total=False):
    group_by: Any


class _Items(TypedDict, total=False):
    items: Any


class EvaluationKeywords(
    SemanticsOptions, _Columns, _Threads, _Workers, _Progress, _Exclude, _Candidates, _GroupBy, _Items, total=False
):
    """The keyword arguments of :func:`rankmeter.evaluate`: every :class:`~rankmeter.Semantics` and option field.

    The fields' meanings are :class:`~rankmeter.Semantics`' and :class:`EvaluationOptions`'. Each option
    name is declared once, in a one-field ``TypedDict`` that the keyword sets of the entry points combine.
    """


class StreamKeywords(SemanticsOptions, _Progress, _Threads, _Exclude, _Candidates, total=False):
    """The keyword arguments of :func:`rankmeter.evaluate_stream`."""


class ArrayKeywords(SemanticsOptions, _Exclude, _Progress, _GroupBy, _Items, total=False):
    """The keyword arguments of :func:`rankmeter.evaluate_arrays`."""


class ListKeywords(SemanticsOptions, _GroupBy, total=False):
    """The keyword arguments of :func:`rankmeter.evaluate_lists`."""


class ColumnKeywords(SemanticsOptions, _Columns, total=False):
    """The keyword arguments of :func:`rankmeter.evaluate_diversity`."""


class DistributedKeywords(SemanticsOptions, _Columns, _Exclude, _Candidates, _Items, _GroupBy, total=False):
    """The keyword arguments of the Spark and Dask entry points (the cluster decides threads and processes).

    ``exclude`` and ``candidates`` may also be a DataFrame of the engine, whose
    user and item columns are found by name; their rows travel with their
    user's. ``group_by`` may name a column of a DataFrame given as ``qrels`` or
    ``run``: its distinct (user, segment) pairs are collected to the driver. The
    beyond-accuracy measures (``items``) compute per-user values with their users
    and merge list-set values from each partition's per-item sums.
    """


def option_names(keywords: Any) -> frozenset[str]:
    """The option fields (not the Semantics fields) of a keyword set.

    >>> sorted(option_names(ListKeywords)), sorted(option_names(ColumnKeywords))
    (['group_by'], ['qrels_columns', 'run_columns'])
    """
    return frozenset(keywords.__required_keys__ | keywords.__optional_keys__) - SEMANTICS_FIELDS


def _same(a: Any, b: Any) -> bool:
    """Whether two option values are the same: the same object, or equal plain values (text, numbers, dicts)."""
    if a is b:
        return True
    plain = (str, int, float, bool, np.integer, np.bool_)
    if isinstance(a, plain) and isinstance(b, plain):
        return bool(a == b) and type(a) is type(b)
    if isinstance(a, dict) and isinstance(b, dict):
        try:
            return bool(a == b)
        except (TypeError, ValueError):  # values that do not compare to one bool (arrays)
            return False
    return False


def _shown(value: Any) -> str:
    """``value`` for a message: its repr when short, else its type.

    >>> _shown(3), _shown(list(range(100)))
    ('3', 'a list')
    """
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


def merged(entry: str, kind: type[V], value: V | None, keywords: Mapping[str, Any]) -> V:
    """``value`` (or ``kind()``) with the ``keywords`` fields applied, refusing a field given twice differently.

    A field counts as set in ``value`` when it differs from ``kind``'s
    default; a keyword that changes a set field is an error, one that
    repeats it (or its canonical form) is not.

    >>> merged("f", EvaluationOptions, EvaluationOptions(threads=2), {"workers": 3}).given()
    ('threads', 'workers')
    """
    if value is not None and not isinstance(value, kind):
        raise TypeError(f"options must be a rankmeter.{kind.__name__}, got {type(value).__name__}")
    defaults: Any = kind()
    base: Any = value if value is not None else defaults
    if not keywords:
        return base  # type: ignore[no-any-return]
    chosen: Any = base.replace(**keywords)
    if value is not None:
        for name, given in keywords.items():
            held = getattr(value, name)
            if not _same(held, getattr(defaults, name)) and not _same(held, getattr(chosen, name)):
                raise PolicyError(
                    f"{entry}: {name}={_shown(given)} as a keyword but {name}={_shown(held)} in options=; give it once"
                )
    return chosen  # type: ignore[no-any-return]


def split_keywords(
    entry: str, options: EvaluationOptions | None, keywords: Mapping[str, Any], accepted: frozenset[str]
) -> tuple[EvaluationOptions, dict[str, Any]]:
    """The options of one call (``options=`` with the keyword options applied) and its Semantics keywords.

    Parameters
    ----------
    entry : str
        The entry point's name, for the messages.
    options : EvaluationOptions, optional
        The ``options=`` value.
    keywords : mapping
        The call's other keyword arguments: option fields and Semantics fields.
    accepted : frozenset of str
        The option fields ``entry`` reads.

    Returns
    -------
    (EvaluationOptions, dict)
        The options, and the keywords that are Semantics fields.

    Raises
    ------
    PolicyError
        A field given both in ``options`` and as a keyword with another value,
        or a field set that ``entry`` does not read.
    TypeError
        ``options`` is not an :class:`EvaluationOptions`, or a keyword is
        neither an option nor a Semantics field.

    Examples
    --------
    >>> opts, sem = split_keywords("f", None, {"threads": 2, "ties": "stable"}, frozenset({"threads"}))
    >>> opts.threads, sem
    (2, {'ties': 'stable'})
    >>> split_keywords("f", EvaluationOptions(threads=2), {"threads": 3}, frozenset({"threads"}))
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: f: threads=3 as a keyword but threads=2 in options=; give it once
    """
    semantics = {k: v for k, v in keywords.items() if k in SEMANTICS_FIELDS}
    own = {k: v for k, v in keywords.items() if k not in SEMANTICS_FIELDS}
    unknown = sorted(set(own) - OPTION_FIELDS)
    if unknown:
        raise TypeError(
            f"{entry}: unknown option {unknown[0]!r}; the Semantics fields are {', '.join(sorted(SEMANTICS_FIELDS))} "
            f"and the options {', '.join(sorted(accepted)) or 'none'}"
        )
    chosen = merged(entry, EvaluationOptions, options, {k: v for k, v in own.items() if v is not None})
    refused = [name for name in chosen.given() if name not in accepted]
    if refused:
        raise PolicyError(
            f"{entry} does not take {refused[0]}= (it reads {', '.join(sorted(accepted)) or 'no evaluation option'})"
        )
    return chosen, semantics
