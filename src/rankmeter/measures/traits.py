r"""What a family's values allow: the facts every fast path reads before it takes a shortcut.

A :class:`~rankmeter.measures.family.Family` declares its :class:`Traits`;
the entry points, the dense and sparse rankings, the vector paths, the
array-API and Keras backends read them (:func:`traits_of`) and never a
list of family names. A family that declares nothing takes the general
path everywhere: every list sorted in full, computed on the host by its
NumPy kernel.

The backend traits name a formula of that backend (the backend's kernel
table is keyed by formula): ``Traits(array_api="map")`` says the family's
values are those of :mod:`rankmeter.xp.kernels`' ``map`` formula, as ``ap``
and ``map`` both are. The tests hold every backend formula to the NumPy
kernel of each family that names it.

>>> Traits(top_k=True).top_k, Traits().array_api is None
(True, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rankmeter.errors import PolicyError

if TYPE_CHECKING:
    from rankmeter.measures.base import Measure


@dataclass(frozen=True)
class Traits:
    """The shortcuts a family's values allow (the defaults allow none).

    Attributes
    ----------
    graded : bool
        The value reads each item's gain :math:`g(\text{grade})` (the
        ``gain`` parameter) rather than a binary relevance ``grade >=
        min_rel``: an empty query has no positive gain (none in the ranked
        list under ``ideal=retrieved``), and Keras list weights sum the gains.
    gain_sum : bool
        An unnormalised sum of gains (DCG, IDCG, CG): with item weights the
        per-list weight is divided out of it (keras-rs's convention).
    top_k : bool
        The value at a cutoff ``k`` reads only the top ``k`` items of the
        ranking, the ideal ordering and the number of relevant items ``R``:
        dense rows may rank only their top ``k`` (evaluate_arrays, vectors).
    full_as_cutoff : bool
        The value without a cutoff equals the value at any cutoff at least the
        list's length (unless the ``divisor`` parameter is ``min``).
    judged_items : bool
        The value reads the ranking only through judged items (their ranks
        and grades) and each list's length: sparse lists of the judged items
        give the same values (:meth:`~rankmeter.core.layout.RankedLists.judged_items`).
    positive_ideal : bool
        The ideal ordering is read at most through ``R`` and, with
        ``ideal_dcg``, the ideal DCG: dense rows may keep only the positive
        grades in their ideal.
    ideal_dcg : bool
        The value reads the DCG of the ideal ordering (NDCG, IDCG): the
        positive-only ideal also needs gains that are 0 at grades <= 0 and a
        built-in discount.
    counts_judged : bool
        The value counts judged items, grade 0 included (``judged@k``):
        lists that keep only the positive grades change it.
    cut_at_relevant : bool
        The list is cut at each query's ``R`` (R-precision): tie diagnostics
        count the groups straddling that cut.
    expected_ties : bool
        Under ``ties="expected"`` the kernel gives the exact mean over every
        ordering of each tied group (a beyond-accuracy list whose value hangs
        on an order inside its top k is still refused, list by list). Without
        it the entry points refuse the family under ``expected`` before
        reading any data (:func:`refuse_expected_ties`).
    sampled_rankings : bool
        The value is defined over several sampled rankings per user (expected
        exposure): the run may be a list of runs.
    defined_without_relevant : bool
        trec_eval reports the kernel's value for a query without a relevant
        document (its ``dcg`` may be non-zero there) instead of 0.
    zero_without_results : bool
        ``trec_eval -c`` scores a judged topic without results 0 instead of
        the kernel's value for an empty list (``utility`` there is
        ``c * R + d * nonrelmissed``).
    array_api : str or None
        The :mod:`rankmeter.xp.kernels` formula that computes it on a device
        (None: the host path).
    keras : str or None
        The :class:`rankmeter.keras.Metric` formula (None: refused there).
    hamming : str or None
        The formula of the Hamming-distance bucket path of
        :func:`rankmeter.evaluate_vectors` (None: the sorting path).
    sampled : str or None
        The :mod:`rankmeter.measures.kernels.sampled` formula of the value's
        exact expectation under ``sampled_negatives=`` (a sum over the relevant
        items of a function of their rank; None: refused there).    value_range : tuple of float or None
        ``(low, high)``: every value lies in this range by the formula (a
        theorem, e.g. a share of the catalogue in [0, 1], an entropy >= 0);
        an interval around a value is bounded to it
        (:func:`rankmeter.beyond.list_set_intervals`). None: not declared.
    """

    graded: bool = False
    gain_sum: bool = False
    top_k: bool = False
    full_as_cutoff: bool = False
    judged_items: bool = False
    positive_ideal: bool = False
    ideal_dcg: bool = False
    counts_judged: bool = False
    cut_at_relevant: bool = False
    expected_ties: bool = False
    sampled_rankings: bool = False
    defined_without_relevant: bool = False
    zero_without_results: bool = False
    array_api: str | None = None
    keras: str | None = None
    hamming: str | None = None
    sampled: str | None = None
    value_range: tuple[float, float] | None = None


def no_expectation(measure: object) -> PolicyError:
    """The error of a measure without an exact expectation over tied orderings, under ``ties="expected"``.

    >>> str(no_expectation("bpref"))[:55]
    "measure 'bpref' has no exact expectation over tied orde"
    """
    return PolicyError(
        f"measure {str(measure)!r} has no exact expectation over tied orderings; use ties='trec', "
        "'stable', 'shuffle', 'optimistic' or 'pessimistic' for it"
    )


def refuse_expected_ties(ties: str, measures: Iterable[Measure]) -> None:
    """Under ``ties="expected"``, raise :func:`no_expectation` for the first measure without ``expected_ties``.

    The entry points call it before reading any data. The diversity families (intent qrels) are left to
    their own entry point, which refuses every policy but ``trec``, ``stable`` and ``shuffle`` with its reason.

    >>> from rankmeter.measures import parse
    >>> refuse_expected_ties("trec", [parse("bpref")])
    >>> refuse_expected_ties("expected", [parse("ndcg@10")])
    >>> refuse_expected_ties("expected", [parse("ndcg@10"), parse("bpref")])
    Traceback (most recent call last):
    ...
    rankmeter.errors.PolicyError: measure 'bpref' has no exact expectation over tied orderings; use ...
    """
    if ties != "expected":
        return
    from rankmeter.measures import family_row

    for m in measures:
        family = family_row(m.family)
        if family.reads != "intents" and not family.traits.expected_ties:
            raise no_expectation(m)
