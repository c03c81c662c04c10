"""Rendering of a :class:`~rankmeter.stats.comparison.Comparison`: tables and plots.

:mod:`rankmeter.report.tables` renders markdown, LaTeX (booktabs) and rich
terminal tables; :mod:`rankmeter.report.plots` draws PNG figures with
matplotlib (the optional ``plot`` extra). Rich and matplotlib are imported only
when a function that needs them is called.
"""
