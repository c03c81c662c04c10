r"""Pairwise and label-ranking measures of scikit-learn and torchmetrics, over each ranked list.

With b_i the binary relevance of the i-th ranked item (grade >= ``min_rel``;
> 0 by default; unjudged items are not relevant), n the list length,
n_+ the relevant and n_- the other items of the list:

- ``auroc`` (torchmetrics' ``RetrievalAUROC``): the share of (relevant,
  non-relevant) pairs with the relevant item ranked above. Under
  ``ties="expected"`` a tied pair counts 1/2 (the exact expectation, and the
  trapezoidal ROC area of torchmetrics and scikit-learn); under the other
  policies the order decides. A list without non-relevant items gives ``all_relevant`` (default 1;
  torchmetrics' ``RetrievalAUROC`` gives 0: the preset ``retrieval_auroc`` sets it).
- ``lrap`` (scikit-learn's ``label_ranking_average_precision_score``):
  :math:`\frac{1}{n_+}\sum_{b_i = 1} L_i / \mathrm{rank}_i`, with
  :math:`\mathrm{rank}_i` the number of items scored >= item i and
  :math:`L_i` the relevant ones among them; 1 when n_+ = 0 or n_+ = n.
- ``coverage_error``: the largest :math:`\mathrm{rank}_i` of a relevant item
  (how far down one must go to cover every relevant item); 0 when n_+ = 0.
- ``label_ranking_loss``: the share of (relevant, non-relevant) pairs where
  the non-relevant item scores >= the relevant one; 0 when n_+ = 0 or n_- = 0.

The last three are defined on the scores, tied items all taking the lowest
rank of their group, exactly as scikit-learn does: their value is the same
under every tie policy. The items are the ranked list's (for dense input, the
row's unmasked items); judged documents that were not retrieved do not enter.
"""

from __future__ import annotations

import numpy as np

from rankmeter.measures.base import Measure
from rankmeter.measures.kernels.context import Context
from rankmeter.measures.kernels.segments import segment_cumsum, segment_sum


def _counts(ctx: Context, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relevant and non-relevant items of each list."""
    pos = segment_sum(b, ctx.ranked.offsets)
    return pos, ctx.lengths.astype(np.float64) - pos


def _group_rank(ctx: Context) -> np.ndarray:
    """Per item: the number of items of its list scored >= it (the 1-based rank of its group's last item)."""
    last = ctx.group_starts[1:] - 1
    return ctx.per_item(ctx.positions[last].astype(np.float64) + 1.0)


def _before_group(ctx: Context, values: np.ndarray) -> np.ndarray:
    """Per item: the sum of ``values`` over the items of earlier tied groups of its list."""
    running = segment_cumsum(values, ctx.ranked.offsets)
    first = ctx.group_starts[:-1]
    return ctx.per_item(running[first] - values[first])


def auroc(ctx: Context, measure: Measure) -> np.ndarray:
    """Share of correctly ordered (relevant, non-relevant) pairs; ties count 1/2 under ``expected``."""
    b = ctx.relevant(measure.param("min_rel"))
    nb = 1.0 - b
    n_pos, n_neg = _counts(ctx, b)
    if ctx.expected:
        earlier = _before_group(ctx, nb) + 0.5 * ctx.per_item(ctx.group_sum(nb))
    else:
        earlier = segment_cumsum(nb, ctx.ranked.offsets) - nb
    correct = segment_sum(b * (np.repeat(n_neg, ctx.ranked.segment_sizes) - earlier), ctx.ranked.offsets)
    pairs = n_pos * n_neg
    out = np.full(len(pairs), float(measure.param("all_relevant", 1.0)))  # no non-relevant item
    np.divide(correct, pairs, out=out, where=pairs > 0)
    out[n_pos == 0] = np.nan  # no relevant item: the empty-query policy decides
    return out[:, None]


def lrap(ctx: Context, measure: Measure) -> np.ndarray:
    """scikit-learn's label ranking average precision of each list."""
    b = ctx.relevant(measure.param("min_rel"))
    n_pos, n_neg = _counts(ctx, b)
    covered = _before_group(ctx, b) + ctx.per_item(ctx.group_sum(b))  # relevant items scored >= this one
    total = segment_sum(b * covered / _group_rank(ctx), ctx.ranked.offsets)
    out = np.ones(len(n_pos))
    np.divide(total, n_pos, out=out, where=(n_pos > 0) & (n_neg > 0))
    return out[:, None]


def coverage_error(ctx: Context, measure: Measure) -> np.ndarray:
    """Number of items scored >= the lowest-scored relevant item (0 without relevant items)."""
    b = ctx.relevant(measure.param("min_rel"))
    reach = np.where(b > 0, _group_rank(ctx), 0.0)
    out = np.zeros(ctx.ranked.n_queries)
    np.maximum.at(out, ctx.item_query, reach)
    return out[:, None]


def label_ranking_loss(ctx: Context, measure: Measure) -> np.ndarray:
    """Share of (relevant, non-relevant) pairs where the non-relevant item scores >= the relevant one."""
    b = ctx.relevant(measure.param("min_rel"))
    n_pos, n_neg = _counts(ctx, b)
    # relevant items scored <= a non-relevant item: all of its list's minus those of strictly earlier groups
    wrong = segment_sum(
        (1.0 - b) * (np.repeat(n_pos, ctx.ranked.segment_sizes) - _before_group(ctx, b)), ctx.ranked.offsets
    )
    pairs = n_pos * n_neg
    out = np.zeros(len(pairs))
    np.divide(wrong, pairs, out=out, where=pairs > 0)
    return out[:, None]
