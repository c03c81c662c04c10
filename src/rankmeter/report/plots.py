"""PNG plots of a comparison (needs matplotlib: ``pip install 'rankmeter[plot]'``).

The figures are drawn with :class:`matplotlib.figure.Figure` directly, never
through :mod:`matplotlib.pyplot`: no GUI backend is selected and the global
pyplot state of the caller (a notebook, say) is left untouched, so the plots
work headless exactly as with the ``Agg`` backend.

Each ``plot_*`` function takes a :class:`~rankmeter.stats.comparison.Comparison`
and a path, writes a PNG and returns the path. The ``draw_*`` functions draw
the same panels from plain per-query vectors onto a given matplotlib ``Axes``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from rankmeter.errors import PolicyError
from rankmeter.io.output import write_atomic

if TYPE_CHECKING:
    from rankmeter.stats.comparison import Comparison, PairRow

#: Colours: better than the baseline, worse, equal, neutral.
WIN, LOSS, TIE, NEUTRAL = "#2a9d55", "#d1495b", "#9e9e9e", "#3b6ea8"
DPI = 150


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError("plots need matplotlib: pip install 'rankmeter[plot]'") from None
    return Figure(figsize=(width, height), layout="constrained")


def _save(fig: Any, path: str | Path) -> Path:
    return write_atomic(path, lambda fh: fig.savefig(fh, dpi=DPI, format="png"))


def _measure(comparison: Comparison, measure: str | None) -> str:
    if measure is None:
        return comparison.measures[0]
    if measure not in comparison.measures:
        raise PolicyError(f"unknown measure {measure!r}; measures are {', '.join(comparison.measures)}")
    return measure


def _system(comparison: Comparison, name: str | None) -> str:
    if name is None:
        others = [n for n in comparison.names if n != comparison.baseline]
        return others[0] if others else comparison.names[0]
    if name not in comparison.names:
        raise PolicyError(f"unknown system {name!r}; systems are {', '.join(comparison.names)}")
    return name


def _pair_caption(pair: PairRow | None) -> str:
    if pair is None:
        return ""
    sig = " \u2020" if pair.significant else ""
    return (
        f"mean \u0394 = {pair.mean_difference:+.4f}, d_z = {pair.effect_size_standardized:+.2f}, "
        f"W/T/L = {pair.wins}/{pair.ties}/{pair.losses}, p adj. = {pair.p_adjusted:.4g}{sig}"
    )


# -- drawing on an Axes from vectors ------------------------------------------------------


def draw_differences(ax: Any, a: Any, b: Any, *, label_a: str = "baseline", label_b: str = "system") -> None:
    """Bar chart of per-query differences ``b - a``, sorted increasingly.

    Bars are green where ``b`` wins, red where it loses; the dashed line is the mean difference.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    a, b : array_like
        Aligned per-query values of the baseline and of the system.
    label_a, label_b : str
        Names used in the axis label.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> draw_differences(ax, [0.2, 0.5, 0.4], [0.3, 0.4, 0.4], label_a="bm25", label_b="dense")
    >>> len(ax.patches)
    3
    """
    d = np.sort(np.asarray(b, dtype=np.float64) - np.asarray(a, dtype=np.float64))
    colors = [WIN if v > 0 else LOSS if v < 0 else TIE for v in d]
    x = np.arange(d.size)
    ax.bar(x, d, width=1.0, color=colors, linewidth=0)
    ax.axhline(0.0, color="black", linewidth=0.8)
    if d.size:
        ax.axhline(
            float(d.mean()), color=NEUTRAL, linestyle="--", linewidth=1.2, label=f"mean \u0394 = {float(d.mean()):+.4f}"
        )
        ax.legend(loc="upper left", frameon=False)
    ax.set_xlim(-0.5, d.size - 0.5)
    ax.set_xlabel(f"queries, sorted by \u0394 (n = {d.size})")
    ax.set_ylabel(f"\u0394 = {label_b} \u2212 {label_a}")


def draw_paired(ax: Any, a: Any, b: Any, *, label_a: str = "baseline", label_b: str = "system") -> None:
    """Scatter of per-query values, ``a`` on x and ``b`` on y, with the diagonal ``y = x``.

    Points above the diagonal (green) are queries where ``b`` is better.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    a, b : array_like
        Aligned per-query values of the baseline (x) and of the system (y).
    label_a, label_b : str
        Axis labels.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> draw_paired(ax, [0.2, 0.5, 0.4], [0.3, 0.4, 0.4])
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('baseline', 'system')
    """
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    colors = np.where(y > x, WIN, np.where(y < x, LOSS, TIE))
    lo = float(min(x.min(initial=0.0), y.min(initial=0.0)))
    hi = float(max(x.max(initial=1.0), y.max(initial=1.0)))
    pad = 0.03 * (hi - lo or 1.0)
    ax.plot([lo - pad, hi + pad], [lo - pad, hi + pad], color="black", linewidth=0.8)
    ax.scatter(x, y, s=14, c=colors, alpha=0.8, linewidths=0)
    ax.set_xlim(lo - pad, hi + pad)
    ax.set_ylim(lo - pad, hi + pad)
    ax.set_aspect("equal")
    wins, losses = int(np.count_nonzero(y > x)), int(np.count_nonzero(y < x))
    ax.text(0.03, 0.97, f"{label_b} better: {wins}", transform=ax.transAxes, va="top", color=WIN)
    ax.text(0.97, 0.03, f"{label_a} better: {losses}", transform=ax.transAxes, ha="right", color=LOSS)
    ax.set_xlabel(label_a)
    ax.set_ylabel(label_b)


def draw_means(
    ax: Any,
    names: list[str],
    means: Any,
    lows: Any,
    highs: Any,
    *,
    highlight: str | None = None,
    marked: set[str] | None = None,
) -> None:
    """Points at each system's mean with confidence-interval error bars.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    names : list of str
        System names (x axis).
    means, lows, highs : array_like
        Mean and interval bounds of each system.
    highlight : str, optional
        The baseline: drawn in grey, its mean as a dotted line.
    marked : set of str, optional
        Systems labelled with ``†`` (significantly different from the baseline).

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> ax = Figure().add_subplot()
    >>> draw_means(ax, ["bm25", "dense"], [0.3, 0.4], [0.25, 0.33], [0.35, 0.46], highlight="bm25")
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['bm25', 'dense']
    """
    m = np.asarray(means, dtype=np.float64)
    err = np.vstack([m - np.asarray(lows, dtype=np.float64), np.asarray(highs, dtype=np.float64) - m])
    x = np.arange(len(names))
    for i, name in enumerate(names):
        color = TIE if name == highlight else NEUTRAL
        ax.errorbar(x[i], m[i], yerr=err[:, i : i + 1], fmt="o", color=color, capsize=4, markersize=6)
        if marked and name in marked:
            ax.annotate(
                "\u2020", (x[i], m[i] + err[1, i]), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=12
            )
    if highlight in names:
        ax.axhline(float(m[names.index(highlight)]), color=TIE, linestyle=":", linewidth=1)
    ax.set_xticks(x, names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    ax.set_xlim(-0.5, len(names) - 0.5)
    ax.margins(y=0.15)


# -- figures from a Comparison ------------------------------------------------------------


def plot_differences(
    comparison: Comparison,
    path: str | Path,
    *,
    system: str | None = None,
    measure: str | None = None,
) -> Path:
    """Per-query differences of ``system`` over the baseline, sorted by delta.

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    path : str or Path
        Where to write the PNG.
    system : str, optional
        Default: the first system that is not the baseline.
    measure : str, optional
        Default: the first measure.

    Returns
    -------
    Path
        ``path``, now holding the PNG.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3", "q4", "q5", "q6"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.2], [.4], [.1], [.5], [.3], [.6]]),
    ...                          "dense": (q, ["map"], [[.3], [.5], [.1], [.7], [.2], [.8]])})
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name)
    >>> plot_differences(cmp, out / "diff.png").stat().st_size > 5_000
    True
    >>> tmp.cleanup()
    """
    measure = _measure(comparison, measure)
    system = _system(comparison, system)
    base = comparison.baseline
    fig = _figure(7.0, 3.8)
    ax = fig.add_subplot()
    draw_differences(
        ax, comparison.values(base, measure), comparison.values(system, measure), label_a=base, label_b=system
    )
    ax.set_title(f"{measure}: {system} vs {base}\n{_pair_caption(comparison.pair(measure, system))}", fontsize=10)
    return _save(fig, path)


def plot_paired(
    comparison: Comparison,
    path: str | Path,
    *,
    x: str | None = None,
    y: str | None = None,
    measure: str | None = None,
) -> Path:
    """Scatter of two systems' per-query values, with the diagonal.

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    path : str or Path
        Where to write the PNG.
    x, y : str, optional
        Systems on the x and y axes; default the baseline and the first other system.
    measure : str, optional
        Default: the first measure.

    Returns
    -------
    Path
        ``path``, now holding the PNG.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3", "q4", "q5", "q6"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.2], [.4], [.1], [.5], [.3], [.6]]),
    ...                          "dense": (q, ["map"], [[.3], [.5], [.1], [.7], [.2], [.8]])})
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name)
    >>> plot_paired(cmp, out / "paired.png").name
    'paired.png'
    >>> tmp.cleanup()
    """
    measure = _measure(comparison, measure)
    x_name = comparison.baseline if x is None else _system(comparison, x)
    y_name = _system(comparison, y)
    fig = _figure(4.8, 4.8)
    ax = fig.add_subplot()
    draw_paired(
        ax, comparison.values(x_name, measure), comparison.values(y_name, measure), label_a=x_name, label_b=y_name
    )
    ax.set_title(f"{measure} per query", fontsize=10)
    return _save(fig, path)


def _draw_means_panel(ax: Any, comparison: Comparison, measure: str) -> None:
    rows = [comparison.system(name, measure) for name in comparison.names]
    marked = {
        name
        for name in comparison.names
        if name != comparison.baseline and (p := comparison.pair(measure, name)) is not None and p.significant
    }
    draw_means(
        ax,
        comparison.names,
        [r.mean for r in rows],
        [r.ci_low for r in rows],
        [r.ci_high for r in rows],
        highlight=comparison.baseline,
        marked=marked,
    )
    level = f"{100 * comparison.metadata['ci_level']:g}%"
    ax.set_title(f"{measure}: mean, {level} {comparison.metadata['ci_method']} CI", fontsize=10)


def plot_means(comparison: Comparison, path: str | Path, *, measures: list[str] | None = None) -> Path:
    """Mean of each system with its confidence interval, one panel per measure.

    The baseline is grey (its mean is the dotted line); ``†`` marks a
    significant difference from it (adjusted p < alpha).

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    path : str or Path
        Where to write the PNG.
    measures : list of str, optional
        Default: every measure.

    Returns
    -------
    Path
        ``path``, now holding the PNG.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3", "q4", "q5", "q6"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.2], [.4], [.1], [.5], [.3], [.6]]),
    ...                          "dense": (q, ["map"], [[.3], [.5], [.1], [.7], [.2], [.8]])})
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name)
    >>> plot_means(cmp, out / "means.png").exists()
    True
    >>> tmp.cleanup()
    """
    chosen = comparison.measures if measures is None else [_measure(comparison, m) for m in measures]
    fig = _figure(max(3.6, 1.0 + 0.9 * len(comparison.names)) * len(chosen), 3.8)
    axes = fig.subplots(1, len(chosen), squeeze=False)[0]
    for ax, measure in zip(axes, chosen, strict=True):
        _draw_means_panel(ax, comparison, measure)
    return _save(fig, path)


def plot_overview(
    comparison: Comparison,
    path: str | Path,
    *,
    system: str | None = None,
    measure: str | None = None,
) -> Path:
    """Three panels: means with CIs, sorted per-query differences, paired scatter.

    This is the figure written by ``rankmeter compare --plot``.

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    path : str or Path
        Where to write the PNG.
    system : str, optional
        System of the difference and scatter panels; default the first one
        that is not the baseline.
    measure : str, optional
        Default: the first measure.

    Returns
    -------
    Path
        ``path``, now holding the PNG.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3", "q4", "q5", "q6"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.2], [.4], [.1], [.5], [.3], [.6]]),
    ...                          "dense": (q, ["map"], [[.3], [.5], [.1], [.7], [.2], [.8]])})
    >>> tmp = tempfile.TemporaryDirectory()
    >>> out = pathlib.Path(tmp.name)
    >>> plot_overview(cmp, out / "overview.png", system="dense").stat().st_size > 5_000
    True
    >>> tmp.cleanup()
    """
    measure = _measure(comparison, measure)
    system = _system(comparison, system)
    base = comparison.baseline
    a, b = comparison.values(base, measure), comparison.values(system, measure)
    fig = _figure(15.0, 4.6)
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 1.5, 1.0])
    _draw_means_panel(fig.add_subplot(grid[0]), comparison, measure)
    ax = fig.add_subplot(grid[1])
    draw_differences(ax, a, b, label_a=base, label_b=system)
    pair = comparison.pair(measure, system)
    ax.set_title(f"{system} vs {base}\n{_pair_caption(pair)}", fontsize=10)
    ax = fig.add_subplot(grid[2])
    draw_paired(ax, a, b, label_a=base, label_b=system)
    ax.set_title(f"{measure} per query", fontsize=10)
    md = comparison.metadata
    fig.suptitle(
        f"rankmeter compare: {md['test']} test, {md['correction']} correction, "
        f"alpha = {md['alpha']:g}, {md['queries']['compared']} queries",
        fontsize=11,
    )
    return _save(fig, path)
