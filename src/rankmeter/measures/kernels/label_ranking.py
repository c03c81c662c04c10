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
    max_fpr = measure.param("max_fpr")
    if max_fpr is None or max_fpr == 1.0:
        np.divide(correct, pairs, out=out, where=pairs > 0)
    else:
        both = pairs > 0
        out[both] = _mcclish(ctx, b, n_pos, n_neg, float(max_fpr))[both]
    out[n_pos == 0] = np.nan  # no relevant item: the empty-query policy decides
    return out[:, None]


def _mcclish(ctx: Context, b: np.ndarray, n_pos: np.ndarray, n_neg: np.ndarray, max_fpr: float) -> np.ndarray:
    r"""McClish's standardised partial ROC area below ``max_fpr`` of each list (scikit-learn's and torchmetrics').

    The ROC curve steps through the lists' tied groups under ``expected`` (a
    diagonal through each group's tied pairs), item by item otherwise. With
    :math:`A_m` the area under it for FPR in :math:`[0, m]` (the segment that
    crosses :math:`m` cut there, linearly),

    .. math:: \frac{1}{2}\Big(1 + \frac{A_m - m^2 / 2}{m - m^2 / 2}\Big)

    Lists without both a relevant and a non-relevant item give NaN.
    """
    if ctx.expected:
        tp, fp, query = ctx.group_sum(b), ctx.group_sum(1.0 - b), ctx.group_query
    else:
        tp, fp, query = b, 1.0 - b, ctx.item_query
    offsets = np.concatenate(([0], np.cumsum(np.bincount(query, minlength=len(n_pos))))).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        x1 = segment_cumsum(fp, offsets) / n_neg[query]
        y1 = segment_cumsum(tp, offsets) / n_pos[query]
        x0, y0 = x1 - fp / n_neg[query], y1 - tp / n_pos[query]
        cut = np.clip(max_fpr, x0, x1)  # where the segment leaves [0, max_fpr]
        slope = np.where(x1 > x0, (y1 - y0) / np.where(x1 > x0, x1 - x0, 1.0), 0.0)
        area = segment_sum((cut - x0) * (2 * y0 + slope * (cut - x0)) / 2, offsets)
        low = max_fpr * max_fpr / 2
        return 0.5 * (1 + (area - low) / (max_fpr - low))


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
