"""The paired tests' p-values from their textbook formulas, in plain Python (no SciPy, nothing of rankmeter).

* Student's t: the two-sided tail of the t distribution with an integer number of degrees of freedom in
  closed form (Abramowitz & Stegun 26.7.3 and 26.7.4).
* Wilcoxon's signed-rank test on the non-zero differences (zeros dropped, ties at their mean rank):
  without ties or zeros, the exact null distribution of the rank sum (counted over every subset of the
  ranks, n <= 50); with ties or zeros, every one of the 2^n sign assignments of the ranks (n <= 13); beyond,
  the normal approximation with the tie correction of the variance and no continuity correction.
"""

from __future__ import annotations

import itertools
import math


def t_two_sided_p(t: float, df: int) -> float:
    """P(|T| >= |t|) for Student's t with ``df`` degrees of freedom (A&S 26.7.3/26.7.4: A(t|df) = 1 - p)."""
    theta = math.atan(abs(t) / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for j in range(1, (df - 2) // 2 + 1):
            term *= (2 * j - 1) / (2 * j) * c * c
            total += term
        a = s * total
    else:
        total = 0.0
        if df > 1:
            term, total = 1.0, 1.0
            for j in range(1, (df - 3) // 2 + 1):
                term *= (2 * j) / (2 * j + 1) * c * c
                total += term
        a = 2 / math.pi * (theta + s * c * total)
    return 1.0 - a


def paired_t(a: list[float], b: list[float]) -> tuple[float, float]:
    """t = mean(d) / (sd(d) / sqrt(n)) of d = b - a, and its two-sided p with n - 1 degrees of freedom."""
    d = [y - x for x, y in zip(a, b, strict=True)]
    n = len(d)
    mean = sum(d) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1))
    t = mean / (sd / math.sqrt(n))
    return t, t_two_sided_p(t, n - 1)


def _midranks(values: list[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def wilcoxon(a: list[float], b: list[float]) -> tuple[float, float]:
    """W = min(R+, R-) of the non-zero d = b - a, and its two-sided p (see the module docstring)."""
    all_d = [y - x for x, y in zip(a, b, strict=True)]
    d = [x for x in all_d if x != 0]
    n = len(d)
    ranks = _midranks([abs(x) for x in d])
    r_plus = sum(r for r, x in zip(ranks, d, strict=True) if x > 0)
    r_minus = sum(ranks) - r_plus
    w = min(r_plus, r_minus)
    ties = len(set(abs(x) for x in d)) < n
    zeros = len(d) < len(all_d)
    if not ties and not zeros and n <= 50:
        # ways[s]: subsets of the ranks 1..n whose sum is s (the null distribution of R+ times 2^n)
        ways = [1] + [0] * (n * (n + 1) // 2)
        for r in range(1, n + 1):
            for s in range(len(ways) - 1, r - 1, -1):
                ways[s] += ways[s - r]
        return w, min(1.0, 2 * sum(ways[: int(w) + 1]) / 2**n)
    if n <= 13:
        # R+ over every sign assignment; two-sided: twice the smaller tail, at most 1
        sums = [
            sum(r for r, up in zip(ranks, signs, strict=True) if up) for signs in itertools.product((0, 1), repeat=n)
        ]
        below = sum(s <= r_plus + 1e-9 for s in sums) / len(sums)
        above = sum(s >= r_plus - 1e-9 for s in sums) / len(sums)
        return w, min(1.0, 2 * min(below, above))
    counts: dict[float, int] = {}
    for x in d:
        counts[abs(x)] = counts.get(abs(x), 0) + 1
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(t**3 - t for t in counts.values()) / 48
    z = (w - n * (n + 1) / 4) / math.sqrt(var)
    return w, math.erfc(abs(z) / math.sqrt(2))
