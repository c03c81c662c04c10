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

from dataclasses import dataclass


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
    sampled_rankings : bool
        The value is defined over several sampled rankings per user (expected
        exposure): the run may be a list of runs.
    defined_without_relevant : bool
        trec_eval reports the kernel's value for a query without a relevant
        document (its ``dcg`` may be non-zero there) instead of 0.
    array_api : str or None
        The :mod:`rankmeter.xp.kernels` formula that computes it on a device
        (None: the host path).
    keras : str or None
        The :class:`rankmeter.keras.Metric` formula (None: refused there).
    hamming : str or None
        The formula of the Hamming-distance bucket path of
        :func:`rankmeter.evaluate_vectors` (None: the sorting path).
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
    sampled_rankings: bool = False
    defined_without_relevant: bool = False
    array_api: str | None = None
    keras: str | None = None
    hamming: str | None = None
