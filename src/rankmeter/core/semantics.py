"""The evaluation semantics as one value: every choice on which the peers disagree, named and validated once.

A :class:`Semantics` holds the tie policy, the empty-query and missing-query
policies, the duplicate policy, the run depth, judged-only filtering and the
shuffle seed. Every entry point (:func:`rankmeter.evaluate`,
:func:`~rankmeter.evaluate_stream`, :func:`~rankmeter.evaluate_arrays`,
:func:`~rankmeter.evaluate_lists`, :func:`~rankmeter.evaluate_vectors`,
:func:`~rankmeter.compare`), the command line and the integrations accept one
(``semantics=``) or build it from the same keyword arguments
(``evaluate(..., ties="expected")``), resolve it for their input world with
:meth:`Semantics.resolve`, and record it whole in ``result.metadata["semantics"]``.

======================  =========================  ===================================================
field                   default                    trec_eval / scikit-learn / keras-rs
======================  =========================  ===================================================
``ties``                the input world's:         trec_eval: ``trec``; scikit-learn ``ndcg_score``:
                        ``trec`` for qrels + run,  ``expected``; keras-rs: ``shuffle``
                        ``expected`` otherwise
``empty``               ``zero``                   all three count such queries with 0
``missing``             ``zero``                   trec_eval ``-c``; ``skip``: trec_eval 9 without -c
``duplicates``          ``error``                  trec_eval 10 aborts on repeated documents
``depth``               None (whole run)           trec_eval ``-M``
``judged_only``         False                      trec_eval ``-J``
``seed``                None                       keras-rs ``seed``, for ``ties="shuffle"``
======================  =========================  ===================================================

Examples
--------
>>> s = Semantics(empty="skip")
>>> s.resolve("qrels").ties, s.resolve("dense").ties
('trec', 'expected')
>>> Semantics.build(s, "qrels", ties="stable", depth=100).as_dict()["depth"]
100
>>> Semantics(ties="random")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
rankmeter.errors.PolicyError: unknown ties policy 'random'; choose one of trec, stable, expected, shuffle, ...
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from rankmeter.errors import PolicyError

TIE_POLICIES = ("trec", "stable", "expected", "shuffle", "optimistic", "pessimistic")
"""Tie policies; :mod:`rankmeter.core.ties` says what each does."""
EMPTY_POLICIES = ("zero", "skip", "nan", "one", "error")
"""Policies for a query with no relevant judged document."""
MISSING_POLICIES = ("zero", "skip", "error")
"""Policies for a judged query absent from the run."""
DUPLICATE_POLICIES = ("error", "first", "max")
"""Policies for a (query, document) pair repeated in a run or qrels."""

WORLDS = ("qrels", "dense", "ragged", "vectors")
"""Input worlds: qrels + run (ids), dense matrices, ragged lists, embeddings or codes with labels."""
DEFAULT_TIES = {"qrels": "trec", "dense": "expected", "ragged": "expected", "vectors": "expected"}
"""The tie policy of each input world when none is given (published numbers of each world reproduce)."""
_QRELS_ONLY = ("missing", "duplicates", "depth", "judged_only")
"""Fields that only mean something when a run is joined with qrels."""


class SemanticsOptions(TypedDict, total=False):
    """The keyword arguments that build a :class:`Semantics` (every field, each optional)."""

    ties: str | None
    empty: str
    missing: str
    duplicates: str
    depth: int | None
    judged_only: bool
    seed: int | None


def choose(value: Any, allowed: tuple[str, ...], name: str) -> str:
    """Return ``value`` if it is one of ``allowed``, else raise :class:`PolicyError` naming the choices.

    >>> choose("skip", MISSING_POLICIES, "missing")
    'skip'
    """
    if value not in allowed:
        raise PolicyError(f"unknown {name} policy {value!r}; choose one of {', '.join(allowed)}")
    return str(value)


@dataclass(frozen=True)
class Semantics:
    """How an evaluation treats ties, empty and missing queries, duplicates, run depth and unjudged documents.

    Parameters
    ----------
    ties : {"trec", "stable", "expected", "shuffle", "optimistic", "pessimistic"}, optional
        Order of documents with equal scores (:mod:`rankmeter.core.ties`).
        None: the input world's default (:data:`DEFAULT_TIES`).
    empty : {"zero", "skip", "nan", "one", "error"}, default "zero"
        A query with no relevant judged document: counted with 0 (1), left
        out, reported as NaN and left out of the mean, or an error.
    missing : {"zero", "skip", "error"}, default "zero"
        A judged query absent from the run: an empty ranking (trec_eval
        ``-c``), left out, or an error. Qrels + run input only.
    duplicates : {"error", "first", "max"}, default "error"
        A repeated (query, document): an error, the first line, or the
        highest score / grade. Qrels + run input only.
    depth : int, optional
        Evaluate only the top ``depth`` documents of each query (trec_eval
        ``-M``). Qrels + run input only; not with ``ties="expected"``.
    judged_only : bool, default False
        Drop unjudged documents (trec_eval ``-J``): documents
        absent from the qrels and those with a negative grade, which
        trec_eval reads as pooled but unjudged; with ``depth``, from the
        top ``depth`` (``-M`` first). Qrels + run input only.
    seed : int, optional
        Seed for ``ties="shuffle"`` (a non-negative integer).

    Notes
    -----
    The value is frozen and hashable; :meth:`replace` gives a changed copy.
    Every field is validated when the value is made, so a misspelt policy
    fails before any input is read.
    """

    ties: str | None = None
    empty: str = "zero"
    missing: str = "zero"
    duplicates: str = "error"
    depth: int | None = None
    judged_only: bool = False
    seed: int | None = None

    def __post_init__(self) -> None:
        if self.ties is not None:
            choose(self.ties, TIE_POLICIES, "ties")
        choose(self.empty, EMPTY_POLICIES, "empty")
        choose(self.missing, MISSING_POLICIES, "missing")
        choose(self.duplicates, DUPLICATE_POLICIES, "duplicates")
        if self.depth is not None and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int | np.integer) or self.depth < 1
        ):
            raise PolicyError(f"depth must be a positive integer, got {self.depth!r}")
        if not isinstance(self.judged_only, bool | np.bool_):
            raise PolicyError(f"judged_only must be True or False, got {self.judged_only!r}")
        if self.seed is not None and (
            isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) or self.seed < 0
        ):
            raise PolicyError(f"seed must be a non-negative integer or None, got {self.seed!r}")
        for name, value, bits in (("depth", self.depth, 63), ("seed", self.seed, 64)):
            if value is not None and value >= 2**bits:  # depths are int64, seeds uint64
                raise PolicyError(f"{name} must be below 2**{bits}, got {value!r}")
        if self.depth is not None and self.ties == "expected":
            raise PolicyError("depth truncation is not defined for ties='expected'; use a measure cutoff (@k)")

    def replace(self, **changes: Any) -> Semantics:
        """A copy with some fields changed (validated again).

        >>> Semantics(ties="stable").replace(empty="nan").empty
        'nan'
        """
        unknown = sorted(set(changes) - FIELDS)
        if unknown:
            raise TypeError(f"unknown evaluation option {unknown[0]!r}; the options are {', '.join(sorted(FIELDS))}")
        return dataclasses.replace(self, **changes)

    def resolve(self, world: str) -> Semantics:
        """This value for an input world: ``ties`` filled with the world's default, every field checked to apply.

        Parameters
        ----------
        world : {"qrels", "dense", "ragged", "vectors"}

        Raises
        ------
        PolicyError
            A field that only applies to qrels + run input (``missing``,
            ``duplicates``, ``depth``, ``judged_only``) is set for another world.

        Examples
        --------
        >>> Semantics().resolve("vectors").ties
        'expected'
        >>> Semantics(depth=10).resolve("dense")
        Traceback (most recent call last):
        ...
        rankmeter.errors.PolicyError: depth=10 applies to qrels and run input only, not to dense input
        """
        choose(world, WORLDS, "input world")
        if world != "qrels":
            default = Semantics()
            for name in _QRELS_ONLY:
                value = getattr(self, name)
                if value != getattr(default, name):
                    raise PolicyError(f"{name}={value!r} applies to qrels and run input only, not to {world} input")
        return self if self.ties is not None else dataclasses.replace(self, ties=DEFAULT_TIES[world])

    @property
    def tie_policy(self) -> str:
        """The tie policy of a resolved value (:meth:`resolve` fills it).

        >>> Semantics(ties="stable").tie_policy
        'stable'
        """
        if self.ties is None:
            raise PolicyError("the tie policy is not resolved yet; call Semantics.resolve(world) first")
        return self.ties

    @classmethod
    def build(cls, semantics: Semantics | None, world: str, **options: Any) -> Semantics:
        """The resolved semantics of one call: ``semantics`` (or the defaults) with the keyword ``options`` applied.

        This is what every entry point does with its ``semantics=`` and
        keyword arguments, so ``evaluate(q, r, m, ties="stable")`` and
        ``evaluate(q, r, m, semantics=Semantics(ties="stable"))`` are one call.

        >>> Semantics.build(None, "dense", empty="skip")  # doctest: +NORMALIZE_WHITESPACE
        Semantics(ties='expected', empty='skip', missing='zero', duplicates='error', depth=None,
                  judged_only=False, seed=None)
        """
        if semantics is not None and not isinstance(semantics, Semantics):
            raise TypeError(f"semantics must be a rankmeter.Semantics, got {type(semantics).__name__}")
        base = semantics if semantics is not None else cls()
        return (base.replace(**options) if options else base).resolve(world)

    def as_dict(self) -> dict[str, Any]:
        """Every field by name, JSON-ready (recorded as ``result.metadata["semantics"]``).

        >>> Semantics(ties="trec", seed=np.int64(3)).as_dict()["seed"]
        3
        """
        out = dataclasses.asdict(self)
        for name in ("depth", "seed"):
            out[name] = None if out[name] is None else int(out[name])
        out["judged_only"] = bool(out["judged_only"])
        return out


FIELDS = frozenset(f.name for f in dataclasses.fields(Semantics))
"""The names of :class:`Semantics`' fields (the keyword arguments entry points accept for it)."""
