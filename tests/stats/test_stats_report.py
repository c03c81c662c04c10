"""Tables (markdown, LaTeX, rich) and plots of a comparison."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rankmeter.report.tables import MARKER, latex_escape, legend, render_latex, render_markdown, render_text
from rankmeter.stats.comparison import Comparison
from rankmeter.stats.significance import compare_per_query


@pytest.fixture(scope="module")
def cmp() -> Comparison:
    rng = np.random.default_rng(0)
    n = 60
    qids = [f"q{i}" for i in range(n)]
    base = rng.beta(2, 3, (n, 2))
    runs = {
        "bm25": base,
        "bm25_rm3": np.clip(base + rng.normal(0.0, 0.05, base.shape), 0, 1),
        "dense": np.clip(base + rng.normal(0.1, 0.05, base.shape), 0, 1),
    }
    return compare_per_query(
        {k: (qids, ["ndcg@10", "map"], v) for k, v in runs.items()}, test="randomization", n_resamples=999
    )


def test_markdown_summary_best_bold_and_markers(cmp: Comparison) -> None:
    text = render_markdown(cmp, ci=True, details=True)
    lines = text.splitlines()
    assert lines[0] == "| System | ndcg@10 | map |"
    assert lines[2].startswith("| bm25 (baseline) | ")
    dense = next(line for line in lines if line.startswith("| dense |"))
    ndcg = cmp.system("dense", "ndcg@10")
    assert f"**{ndcg.mean:.4f}** {MARKER} [{ndcg.ci_low:.4f}, {ndcg.ci_high:.4f}]" in dense
    rm3 = next(line for line in lines if line.startswith("| bm25\\_rm3 |"))
    assert MARKER not in rm3 and "**" not in rm3
    assert legend(cmp) in text
    assert "Holm-corrected p < 0.05 vs baseline bm25 (paired randomization test, 4 comparisons)" in text
    detail = [line for line in lines if line.startswith("| ndcg@10 | dense |")]
    pair = cmp.pair("ndcg@10", "dense")
    assert pair is not None and detail and f"{pair.wins}/{pair.ties}/{pair.losses}" in detail[0]


def test_latex_booktabs(cmp: Comparison) -> None:
    tex = render_latex(cmp)
    assert tex.startswith("\\begin{tabular}{lrr}\n\\toprule\nSystem & ndcg@10 & map \\\\\n\\midrule\n")
    assert "bm25\\_rm3 & " in tex
    assert "\\textbf{" in tex and "$^{\\dagger}$" in tex
    assert "\\bottomrule" in tex and tex.rstrip().endswith("\\end{tabular}")
    assert tex.count("\\\\") == 4  # header + 3 systems; the legend row has no line break
    assert latex_escape("a_b&c%d#e$f{g}~^\\") == (
        "a\\_b\\&c\\%d\\#e\\$f\\{g\\}\\textasciitilde{}\\textasciicircum{}\\textbackslash{}"
    )


def test_rich_text_table(cmp: Comparison) -> None:
    text = render_text(cmp, width=120)
    assert "bm25 (baseline)" in text and "dense" in text and MARKER in text
    assert "Pairs" in text and "W/T/L" in text
    colored = render_text(cmp, width=120, color=True)
    assert "\x1b[" in colored  # ANSI styles (bold best values) when colour is on


def test_tukey_legend_and_vs_column() -> None:
    qids = [str(i) for i in range(10)]
    rng = np.random.default_rng(1)
    pq = {name: (qids, ["map"], rng.random((10, 1))) for name in ["a", "b", "c"]}
    cmp = compare_per_query(pq, test="tukey")
    assert "(Tukey HSD, all system pairs)" in legend(cmp)
    assert "| Measure | System | vs |" in render_markdown(cmp)


def test_plots_write_pngs(cmp: Comparison, tmp_path: Path) -> None:
    from rankmeter.report import plots

    (tmp_path / "sub").mkdir()  # rankmeter creates no directories
    written = [
        plots.plot_differences(cmp, tmp_path / "diff.png", system="dense", measure="map"),
        plots.plot_means(cmp, tmp_path / "means.png"),
        plots.plot_paired(cmp, tmp_path / "paired.png", y="bm25_rm3"),
        plots.plot_overview(cmp, tmp_path / "sub" / "overview.png"),
    ]
    for path in written:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(data) > 5_000
    with pytest.raises(ValueError, match="unknown system 'nope'"):
        plots.plot_differences(cmp, tmp_path / "x.png", system="nope")


def test_plots_leave_pyplot_alone(cmp: Comparison, tmp_path: Path) -> None:
    import sys

    from rankmeter.report import plots

    had_pyplot = "matplotlib.pyplot" in sys.modules
    plots.plot_means(cmp, tmp_path / "m.png")
    assert ("matplotlib.pyplot" in sys.modules) == had_pyplot
