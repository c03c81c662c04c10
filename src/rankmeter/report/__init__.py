"""Rendering of a :class:`~rankmeter.Comparison`: tables and plots.

Tables: :func:`render_markdown`, :func:`render_latex` (booktabs),
:func:`render_text` and :func:`render_rich` (terminal), :func:`print_table`.
Plots (PNG, matplotlib, the optional ``plot`` extra): :func:`plot_differences`,
:func:`plot_paired`, :func:`plot_means`, :func:`plot_overview`. One
self-contained HTML page (the optional ``report`` extra): :func:`html`,
:func:`render_html`. Rich, matplotlib, Jinja2 and Vega are imported only when a
function that needs them is called.

>>> import rankmeter
>>> per_query = {"a": (["q1", "q2", "q3"], ["map"], [[0.1], [0.5], [0.3]]),
...              "b": (["q1", "q2", "q3"], ["map"], [[0.2], [0.6], [0.5]])}
>>> cmp = rankmeter.compare_per_query(per_query, test="t")
>>> print(rankmeter.report.render_markdown(cmp, details=False).splitlines()[0])
| System | map |
"""

from rankmeter.report.page import html, render_html
from rankmeter.report.plots import plot_differences, plot_means, plot_overview, plot_paired
from rankmeter.report.tables import print_table, render_latex, render_markdown, render_rich, render_text

__all__ = [
    "html",
    "plot_differences",
    "plot_means",
    "plot_overview",
    "plot_paired",
    "print_table",
    "render_latex",
    "render_html",
    "render_markdown",
    "render_rich",
    "render_text",
]
