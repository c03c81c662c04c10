"""Tables of a comparison: systems as rows, measures as columns, significance markers.

Every format shows the same summary: the mean of each measure per system, the
best value of each column in bold (higher is better), and the marker ``†``
where the system differs significantly from the baseline (adjusted p-value
< alpha), explained by a legend line. Markdown and the terminal table add the
confidence intervals and a detail table of every tested pair.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rankmeter.io.escaping import printable

if TYPE_CHECKING:
    from rankmeter.stats.comparison import Comparison, PairRow

#: The significance marker.
MARKER = "\u2020"

_TEST_LABELS = {
    "t": "paired t test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization test",
    "bootstrap": "paired bootstrap test",
    "tukey": "Tukey HSD",
    "randomized-tukey": "randomized Tukey HSD",
}
_CORRECTION_LABELS = {"holm": "Holm", "bonferroni": "Bonferroni", "bh": "Benjamini\u2013Hochberg"}


@dataclass(frozen=True)
class Cell:
    """One (system, measure) cell of the summary table."""

    mean: float
    ci_low: float
    ci_high: float
    best: bool
    significant: bool


def fmt_value(x: float, digits: int = 4) -> str:
    """Format a score (``nan`` as ``"n/a"``).

    Examples
    --------
    >>> fmt_value(0.123456), fmt_value(float("nan"))
    ('0.1235', 'n/a')
    """
    if math.isnan(x):
        return "n/a"
    return f"{x:.{digits}f}" if math.isfinite(x) else ("inf" if x > 0 else "-inf")


def fmt_p(p: float) -> str:
    """Format a p-value: 4 decimals, scientific notation below 0.0001.

    Examples
    --------
    >>> fmt_p(0.04321), fmt_p(0.00001234), fmt_p(float("nan"))
    ('0.0432', '1.2e-05', 'n/a')
    """
    if math.isnan(p):
        return "n/a"
    return f"{p:.1e}" if 0 < p < 1e-4 else f"{p:.4f}"


def fmt_signed(x: float, digits: int = 4) -> str:
    """Format a difference with its sign (``inf`` as ``"+inf"``).

    Examples
    --------
    >>> fmt_signed(0.0123), fmt_signed(-0.5), fmt_signed(float("inf"))
    ('+0.0123', '-0.5000', '+inf')
    """
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.{digits}f}"


def summary(comparison: Comparison) -> tuple[list[str], list[tuple[str, list[Cell]]]]:
    """The summary grid: measure names and, per system, one :class:`Cell` per measure.

    A cell is ``best`` when its mean is the highest of its column (higher is
    better; ties are all best) and ``significant`` when the system's pair with
    the baseline has an adjusted p-value below alpha.

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c"]
    >>> cmp = compare_per_query({"x": (q, ["map"], [[.1], [.2], [.3]]),
    ...                          "y": (q, ["map"], [[.2], [.2], [.5]])})
    >>> measures, rows = summary(cmp)
    >>> measures, [(name, cells[0].best) for name, cells in rows]
    (['map'], [('x', False), ('y', True)])
    """
    measures = comparison.measures
    best = {}
    for measure in measures:
        means = [r.mean for r in comparison.systems if r.measure == measure and not math.isnan(r.mean)]
        best[measure] = max(means) if means else math.nan
    rows = []
    for name in comparison.names:
        cells = []
        for measure in measures:
            row = comparison.system(name, measure)
            pair = None if name == comparison.baseline else comparison.pair(measure, name)
            cells.append(
                Cell(
                    row.mean,
                    row.ci_low,
                    row.ci_high,
                    best=row.mean == best[measure],
                    significant=bool(pair is not None and pair.significant),
                )
            )
        rows.append((name, cells))
    return measures, rows


def legend(comparison: Comparison, *, ci: bool = True, escape: Callable[[str], str] = str) -> str:
    """Sentences explaining the marker, the bold values and (if ``ci``) the intervals; ``escape`` writes the baseline.

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c"]
    >>> cmp = compare_per_query({"x": (q, ["map"], [[.1], [.2], [.3]]),
    ...                          "y": (q, ["map"], [[.2], [.2], [.5]])})
    >>> print(legend(cmp))
    † Holm-corrected p < 0.05 vs baseline x (paired t test, 1 comparison). Bold: best per column. \
Brackets: 95% BCa bootstrap CI of the mean over 3 queries.
    """
    md = comparison.metadata
    test = _TEST_LABELS.get(md["test"], md["test"])
    n_tests = md["family_size"]
    if md["test"] in ("tukey", "randomized-tukey"):
        what = f"{MARKER} adjusted p < {md['alpha']:g} vs baseline {escape(md['baseline'])} ({test}, all system pairs)."
    elif md["correction"] == "none":
        what = f"{MARKER} p < {md['alpha']:g} vs baseline {escape(md['baseline'])} ({test}, uncorrected)."
    else:
        corr = _CORRECTION_LABELS.get(md["correction"], md["correction"])
        plural = "comparison" if n_tests == 1 else "comparisons"
        baseline = escape(md["baseline"])
        what = f"{MARKER} {corr}-corrected p < {md['alpha']:g} vs baseline {baseline} ({test}, {n_tests} {plural})."
    text = f"{what} Bold: best per column."
    if ci:
        level = f"{100 * md['ci_level']:g}%"
        text += (
            f" Brackets: {level} {md['ci_method']} bootstrap CI of the mean over {md['queries']['compared']} queries."
        )
    return text


def _label(comparison: Comparison, name: str) -> str:
    return f"{name} (baseline)" if name == comparison.baseline else name


def pair_columns(comparison: Comparison) -> tuple[list[str], int]:
    """Headers of the pair-detail table and how many leading columns hold names.

    ``vs`` appears only for all-pairs tests (otherwise every row is against the
    baseline); ``Statistic`` only for the t and Wilcoxon tests (for the others
    it is the mean difference).
    """
    test = comparison.metadata["test"]
    headers = ["Measure", "System"]
    if test in ("tukey", "randomized-tukey"):
        headers.append("vs")
    names = len(headers)
    headers += ["\u0394 mean", "d_z", "W/T/L"]
    if test in ("t", "wilcoxon"):
        headers.append("Statistic")
    headers += ["p", "p adj."]
    return headers, names


def pair_cells(pair: PairRow, headers: list[str]) -> list[str]:
    """The cells of one pair row for the given :func:`pair_columns` headers."""
    values = {
        "Measure": pair.measure,
        "System": pair.system,
        "vs": pair.baseline,
        "\u0394 mean": fmt_signed(pair.mean_difference),
        "d_z": fmt_signed(pair.effect_size_standardized, 2),
        "W/T/L": f"{pair.wins}/{pair.ties}/{pair.losses}",
        "Statistic": fmt_value(pair.statistic, 3),
        "p": fmt_p(pair.p_value),
        "p adj.": fmt_p(pair.p_adjusted) + (f" {MARKER}" if pair.significant else ""),
    }
    return [values[h] for h in headers]


# -- markdown -----------------------------------------------------------------------------


_MD_SPECIAL = str.maketrans(
    {
        "\\": "\\\\",
        "|": "\\|",
        "*": "\\*",
        "_": "\\_",
        "`": "\\`",
        "[": "\\[",
        "]": "\\]",
        "!": "\\!",
        "~": "\\~",
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "\n": " ",
        "\r": " ",
    }
)


def _md_escape(text: str) -> str:
    """A name as Markdown text in a table cell: emphasis, pipes, links and HTML escaped, line breaks as spaces.

    Link and image markup (``![t](https://evil.example/pixel.png)`` would make a viewer fetch the image)
    is neutralised by escaping its brackets: without ``[...]`` there is no link.

    >>> print(_md_escape("<script>|a_b"))
    &lt;script&gt;\\|a\\_b
    >>> print(_md_escape("![t](https://evil.example/pixel.png)"))
    \\!\\[t\\](https://evil.example/pixel.png)
    """
    return text.translate(_MD_SPECIAL)


def render_markdown(comparison: Comparison, *, ci: bool = True, details: bool = True) -> str:
    """Markdown (GitHub pipe tables) rendering of a comparison.

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    ci : bool, default True
        Append ``[low, high]`` to every mean.
    details : bool, default True
        Add a second table with every tested pair (mean difference, Cohen's
        d_z, wins/ties/losses, statistic, raw and adjusted p).

    Returns
    -------
    str

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c", "d"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.1], [.2], [.3], [.2]]),
    ...                          "dense": (q, ["map"], [[.2], [.3], [.5], [.3]])})
    >>> print(render_markdown(cmp, ci=False, details=False), end="")
    | System | map |
    |:--|--:|
    | bm25 (baseline) | 0.2000 |
    | dense | **0.3250** † |
    <BLANKLINE>
    † Holm-corrected p < 0.05 vs baseline bm25 (paired t test, 1 comparison). Bold: best per column.
    """
    measures, rows = summary(comparison)
    lines = [
        "| System | " + " | ".join(_md_escape(m) for m in measures) + " |",
        "|:--|" + "--:|" * len(measures),
    ]
    for name, cells in rows:
        rendered = []
        for cell in cells:
            text = fmt_value(cell.mean)
            if cell.best:
                text = f"**{text}**"
            if cell.significant:
                text += f" {MARKER}"
            if ci:
                text += f" [{fmt_value(cell.ci_low)}, {fmt_value(cell.ci_high)}]"
            rendered.append(text)
        lines.append(f"| {_md_escape(_label(comparison, name))} | " + " | ".join(rendered) + " |")
    lines += ["", legend(comparison, ci=ci, escape=_md_escape)]
    if details and comparison.pairs:
        headers, names = pair_columns(comparison)
        rule = "|" + ":--|" * names + "--:|" * (len(headers) - names)
        lines += ["", "| " + " | ".join(headers) + " |", rule]
        for pair in comparison.pairs:
            texts = pair_cells(pair, headers)
            texts[:names] = [_md_escape(t) for t in texts[:names]]
            lines.append("| " + " | ".join(texts) + " |")
    return "\n".join(lines) + "\n"


# -- LaTeX ---------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "\n": " ",
    "\r": " ",
}


def latex_escape(text: str) -> str:
    r"""Escape LaTeX special characters.

    Examples
    --------
    >>> print(latex_escape("bm25_rm3 & 50%"))
    bm25\_rm3 \& 50\%
    """
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def render_latex(comparison: Comparison, *, ci: bool = False) -> str:
    r"""LaTeX ``tabular`` with booktabs rules (``\usepackage{booktabs}``).

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    ci : bool, default False
        Append the confidence interval to every mean.

    Returns
    -------
    str
        A ``tabular`` environment whose last row is the legend.

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c", "d"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.1], [.2], [.3], [.2]]),
    ...                          "dense": (q, ["map"], [[.2], [.3], [.5], [.3]])})
    >>> print(render_latex(cmp), end="")
    \begin{tabular}{lr}
    \toprule
    System & map \\
    \midrule
    bm25 (baseline) & 0.2000 \\
    dense & \textbf{0.3250}$^{\dagger}$ \\
    \bottomrule
    \multicolumn{2}{l}{\footnotesize $^{\dagger}$ Holm-corrected $p < 0.05$ vs.\ bm25 (paired t test).}
    \end{tabular}
    """
    measures, rows = summary(comparison)
    md = comparison.metadata
    lines = [
        r"\begin{tabular}{l" + "r" * len(measures) + "}",
        r"\toprule",
        "System & " + " & ".join(latex_escape(m) for m in measures) + r" \\",
        r"\midrule",
    ]
    for name, cells in rows:
        rendered = []
        for cell in cells:
            text = fmt_value(cell.mean)
            if cell.best:
                text = rf"\textbf{{{text}}}"
            if cell.significant:
                text += r"$^{\dagger}$"
            if ci:
                text += rf" {{\scriptsize [{fmt_value(cell.ci_low)}, {fmt_value(cell.ci_high)}]}}"
            rendered.append(text)
        lines.append(latex_escape(_label(comparison, name)) + " & " + " & ".join(rendered) + r" \\")
    test = _TEST_LABELS.get(md["test"], md["test"])
    if md["test"] in ("tukey", "randomized-tukey"):
        kind = "Adjusted"
    elif md["correction"] == "none":
        kind = "Uncorrected"
    else:
        label = _CORRECTION_LABELS.get(md["correction"], md["correction"])
        kind = label.replace("\u2013", "--") + "-corrected"
    note = rf"$^{{\dagger}}$ {kind} $p < {md['alpha']:g}$ vs.\ {latex_escape(md['baseline'])} ({test})."
    lines += [
        r"\bottomrule",
        rf"\multicolumn{{{len(measures) + 1}}}{{l}}{{\footnotesize {note}}}",
        r"\end{tabular}",
    ]
    return "\n".join(lines) + "\n"


# -- rich (terminal) ---------------------------------------------------------------------


def render_rich(comparison: Comparison, *, details: bool = True) -> Any:
    """A :mod:`rich` renderable: the summary table, the legend and (optionally) the pair details.

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    details : bool, default True
        Add the table of every tested pair.

    Returns
    -------
    rich.console.Group

    Examples
    --------
    >>> import io
    >>> from rich.console import Console
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c"]
    >>> cmp = compare_per_query({"x": (q, ["map"], [[.1], [.2], [.3]]),
    ...                          "y": (q, ["map"], [[.2], [.2], [.5]])})
    >>> console = Console(width=80, file=io.StringIO())
    >>> console.print(render_rich(cmp))
    >>> "x (baseline)" in console.file.getvalue()
    True
    """
    from rich import box
    from rich.console import Group
    from rich.table import Table
    from rich.text import Text

    measures, rows = summary(comparison)
    n = comparison.metadata["queries"]["compared"]
    table = Table(title=f"Comparison over {n} queries", title_justify="left", box=box.SIMPLE_HEAD)
    table.add_column("System", no_wrap=True)
    for m in measures:
        table.add_column(m, justify="right", no_wrap=True)
    for name, cells in rows:
        rendered = []
        for cell in cells:
            text = Text(fmt_value(cell.mean), style="bold" if cell.best else "")
            text.append(f" {MARKER}" if cell.significant else "  ")
            text.append(f"\n[{fmt_value(cell.ci_low)}, {fmt_value(cell.ci_high)}]", style="dim")
            rendered.append(text)
        label = Text(printable(_label(comparison, name)), style="italic" if name == comparison.baseline else "")
        table.add_row(label, *rendered)
    parts: list[Any] = [table, Text(legend(comparison, escape=printable), style="dim")]
    if details and comparison.pairs:
        headers, names = pair_columns(comparison)
        pair_table = Table(title="Pairs", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
        for i, header in enumerate(headers):
            pair_table.add_column(header, justify="left" if i < names else "right", no_wrap=True)
        for pair in comparison.pairs:
            texts = [Text(printable(text)) for text in pair_cells(pair, headers)]  # text, never rich markup
            pair_table.add_row(*texts, style="bold" if pair.significant else "")
        parts += [Text(""), pair_table]
    return Group(*parts)


def render_text(comparison: Comparison, *, width: int = 100, color: bool = False, details: bool = True) -> str:
    """The terminal table as a string (plain text unless ``color``).

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    width : int, default 100
        Console width in characters.
    color : bool, default False
        Keep ANSI styles (bold best values).
    details : bool, default True
        Add the table of every tested pair.

    Returns
    -------
    str

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["a", "b", "c", "d"]
    >>> cmp = compare_per_query({"bm25": (q, ["map"], [[.1], [.2], [.3], [.2]]),
    ...                          "dense": (q, ["map"], [[.2], [.3], [.5], [.3]])})
    >>> text = render_text(cmp)
    >>> "dense" in text and MARKER in text
    True
    """
    import io

    from rich.console import Console

    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width,
        force_terminal=color,
        no_color=not color,
        color_system="auto" if color else None,
    )
    console.print(render_rich(comparison, details=details))
    return buf.getvalue()


def print_table(comparison: Comparison, *, console: Any = None, details: bool = True) -> None:
    """Print the terminal table to ``console`` (default: a new :class:`rich.console.Console`).

    Parameters
    ----------
    comparison : Comparison
        The result of :func:`rankmeter.stats.significance.compare`.
    console : rich.console.Console, optional
        Where to print; default a console on stdout (colours when it is a terminal).
    details : bool, default True
        Add the table of every tested pair.
    """
    if console is None:
        from rich.console import Console

        console = Console()
    console.print(render_rich(comparison, details=details))
