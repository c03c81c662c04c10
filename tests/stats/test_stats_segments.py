"""``compare(..., group_by=)``: paired tests within each segment, one correction over segments x systems x measures.

Each segment's t and Wilcoxon tests are checked against their formulas (tests/stats/plain.py) on that
segment's values taken out by hand, the means against NumPy, and the Holm
correction against its definition written out over the whole family.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import rankmeter
from rankmeter import GroupBy
from rankmeter.errors import InputFormatError, PolicyError
from tests.stats import plain

MEASURES = ["map", "rr"]


def _systems(seed: int = 0, n: int = 40) -> tuple[list[str], dict[str, np.ndarray], dict[str, str]]:
    rng = np.random.default_rng(seed)
    qids = [f"u{i}" for i in range(n)]
    base = rng.random((n, 2))
    values = {"base": base, "better": np.clip(base + rng.normal(0.08, 0.1, (n, 2)), 0, 1), "other": rng.random((n, 2))}
    segments = {q: ("cold" if i % 4 == 0 else "warm") for i, q in enumerate(qids)}
    return qids, values, segments


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment written out: max over i <= j of min(1, (k - i) p_(i)), in sorted order."""
    order = np.argsort(p)
    k = p.size
    out = np.empty(k)
    running = 0.0
    for rank, at in enumerate(order):
        running = max(running, min(1.0, (k - rank) * p[at]))
        out[at] = running
    return out


@pytest.mark.parametrize("test", ["t", "wilcoxon"])
def test_tests_within_each_segment_equal_their_formulas_and_holm_over_the_family(test: str) -> None:
    qids, values, segments = _systems()
    per_query = {name: (qids, MEASURES, v) for name, v in values.items()}
    cmp = rankmeter.compare_per_query(per_query, test=test, group_by=segments)
    assert [g.segment for g in cmp.groups] == ["cold", "warm"]
    raw = []
    for group in cmp.groups:
        rows = [i for i, q in enumerate(qids) if segments[q] == group.segment]
        assert group.n_queries == len(rows)
        for j, measure in enumerate(MEASURES):
            for name in ("better", "other"):
                a, b = values["base"][rows, j], values[name][rows, j]
                _, p = (plain.paired_t if test == "t" else plain.wilcoxon)(a.tolist(), b.tolist())
                pair = group.pair(measure, name)
                assert pair is not None
                assert pair.p_value == pytest.approx(p, rel=1e-9, abs=1e-14)
                assert pair.mean_difference == pytest.approx(np.mean(b - a), abs=1e-15)
                raw.append(pair.p_value)
            for name in values:
                assert group.systems[[(r.name, r.measure) for r in group.systems].index((name, measure))].mean == (
                    np.mean(values[name][rows, j])
                )
    adjusted = [p.p_adjusted for g in cmp.groups for p in g.pairs]
    assert adjusted == pytest.approx(_holm(np.array(raw)).tolist(), rel=1e-12)
    assert cmp.metadata["groups"]["family"] == "segments x systems x measures"
    assert cmp.metadata["groups"]["family_size"] == 2 * 2 * 2
    overall = rankmeter.compare_per_query(per_query, test=test)
    assert cmp.pairs == overall.pairs  # the overall family is corrected on its own, as without group_by
    for group in cmp.groups:
        for pair in group.pairs:
            assert pair.significant == (pair.p_adjusted < 0.05)


def test_compare_evaluates_and_groups_by_a_dict() -> None:
    qrels = {f"u{i}": {"a": 1, "b": int(i % 2)} for i in range(12)}
    runs = {
        "x": {f"u{i}": {"a": 2.0, "b": 1.0, "c": 0.5} for i in range(12)},
        "y": {f"u{i}": {"c": 2.0, "b": 1.0 + (i % 3), "a": 0.5} for i in range(12)},
    }
    segments = {f"u{i}": i % 3 for i in range(12)}
    cmp = rankmeter.compare(qrels, runs, ["rr", "p@1"], group_by=segments)
    for group in cmp.groups:
        users = [q for q, s in segments.items() if s == group.segment]
        for measure in ("rr", "p@1"):
            x = rankmeter.evaluate({u: qrels[u] for u in users}, {u: runs["x"][u] for u in users}, measure)
            y = rankmeter.evaluate({u: qrels[u] for u in users}, {u: runs["y"][u] for u in users}, measure)
            assert group.systems[[(r.name, r.measure) for r in group.systems].index(("x", measure))].mean == x[measure]
            pair = group.pair(measure, "y")
            assert pair is not None
            differences = [y.by_query(measure)[u] - x.by_query(measure)[u] for u in sorted(users)]
            assert pair.mean_difference == pytest.approx(np.mean(differences), abs=1e-15)
    table = cmp.to_pandas("segment_pairs")
    assert list(table.columns[:3]) == ["segment", "n_queries", "measure"]
    assert sorted(set(table.segment)) == [0, 1, 2]
    assert set(cmp.to_dict()) == {"systems", "pairs", "metadata", "segment_systems", "segment_pairs"}
    assert cmp.segment(1).n_queries == 4
    with pytest.raises(PolicyError, match=re.escape("no segment 'one' in this comparison")):
        cmp.segment("one")


def test_segments_without_enough_queries_are_reported_not_dropped() -> None:
    qids, values, segments = _systems(n=9)
    segments = {q: ("one" if q == "u0" else "many") for q in qids} | {"nobody": "empty"}
    per_query = {name: (qids, MEASURES, v) for name, v in values.items()}
    cmp = rankmeter.compare_per_query(per_query, test="tukey", group_by=segments)
    by_label = {g.segment: g for g in cmp.groups}
    assert by_label["empty"].n_queries == 0 and by_label["empty"].pairs == []
    assert all(np.isnan(r.mean) for r in by_label["empty"].systems)
    assert by_label["one"].pairs == [] and "no tukey test in segment one: 1 queries" in by_label["one"].notes
    assert len(by_label["many"].pairs) == 3 * 2  # every pair of the three systems, two measures
    assert cmp.metadata["groups"]["correction"] == "none"  # Tukey's p-values are adjusted already


def test_grouped_comparison_errors() -> None:
    qids, values, _ = _systems(n=6)
    per_query = {name: (qids, MEASURES, v) for name, v in values.items()}
    with pytest.raises(InputFormatError, match=re.escape("group_by: 5 evaluated queries have no segment")):
        rankmeter.compare_per_query(per_query, group_by={"u0": "a"})
    cmp = rankmeter.compare_per_query(per_query, group_by=GroupBy({"u0": "a"}, missing="none"), test="wilcoxon")
    assert [(g.segment, g.n_queries) for g in cmp.groups] == [("a", 1), (None, 5)]
    with pytest.raises(PolicyError, match=re.escape("table 'segment_pairs': this comparison has no segments")):
        rankmeter.compare_per_query(per_query).to_csv("segment_pairs")


def _files(tmp_path) -> tuple[str, list[str], str, dict[str, str]]:
    rng = np.random.default_rng(5)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"u{q} 0 d{d} {int(rng.random() < 0.4)}\n" for q in range(24) for d in range(10)))
    runs = []
    for name in ("bm25", "dense"):
        path = tmp_path / f"{name}.run"
        path.write_text(
            "".join(
                f"u{q} Q0 d{d} {r} {10 - r} {name}\n" for q in range(24) for r, d in enumerate(rng.permutation(10), 1)
            )
        )
        runs.append(str(path))
    segments = {f"u{q}": ("new" if q < 8 else "old") for q in range(24)}
    table = tmp_path / "segments.tsv"
    table.write_text("user_id\tsegment\n" + "".join(f"{u}\t{s}\n" for u, s in segments.items()))
    return str(qrels), runs, str(table), segments


def test_cli_compare_and_report_group_by_a_file(tmp_path, capsys) -> None:
    from rankmeter.cli.main import main

    qrels, runs, table, segments = _files(tmp_path)
    assert main(["compare", qrels, *runs, "-m", "ndcg@5", "--group-by", table, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    expected = rankmeter.compare(qrels, dict(zip(["bm25", "dense"], runs, strict=True)), ["ndcg@5"], group_by=segments)
    assert data["segment_pairs"] == json.loads(expected.to_json())["segment_pairs"]
    assert [row["segment"] for row in data["segment_pairs"]] == ["new", "old"]
    assert main(["compare", qrels, *runs, "-m", "ndcg@5", "--group-by", table, "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("segment,n_queries,measure,baseline,system,test")
    assert [line.split(",")[:2] for line in lines[1:]] == [["new", "8"], ["old", "16"]]
    assert main(["compare", qrels, *runs, "-m", "ndcg@5", "--group-by", table, "--format", "markdown"]) == 0
    markdown = capsys.readouterr().out
    assert "### segment new (8 queries)" in markdown and "### segment old (16 queries)" in markdown
    out = tmp_path / "report.html"
    assert (
        main(["report", qrels, *runs, "-m", "ndcg@5", "--group-by", table, "-o", str(out), "--n-resamples", "300"]) == 0
    )
    page = out.read_text(encoding="utf-8")
    assert '<section id="segments">' in page
    for group in expected.groups:
        for row in group.systems:
            mean = re.search(
                rf'data-segment="{group.segment}" data-system="{row.name}" data-measure="ndcg@5" data-mean="([^"]+)"',
                page,
            )
            assert mean is not None and float(mean.group(1)) == row.mean
    assert main(["compare", qrels, *runs, "-m", "ndcg@5", "--group-by", "cohort"]) == 1
    assert "group_by 'cohort': no column of that name" in capsys.readouterr().err


def test_a_report_without_segments_has_no_segment_section(tmp_path) -> None:
    qrels, runs, _, _ = _files(tmp_path)
    page = rankmeter.report.html(qrels, dict(zip(["bm25", "dense"], runs, strict=True)), "rr", n_resamples=200)
    assert '<section id="segments">' not in page and 'href="#segments"' not in page


def test_integer_query_ids_stay_integers_through_a_comparison() -> None:
    qrels = {1: {"a": 1}, 2: {"b": 1}, 10: {"c": 1}}
    runs = {"x": {1: {"a": 1.0}, 2: {"z": 1.0, "b": 0.5}, 10: {"c": 1.0}}, "y": {1: {"a": 1.0}, 2: {"b": 1.0}}}
    cmp = rankmeter.compare(qrels, runs, "rr", group_by={1: "a", 2: "a", 10: "b"})
    assert cmp.query_ids.tolist() == [1, 2, 10]
    assert cmp.values("y", "rr").tolist() == [1.0, 1.0, 0.0]  # query 10 is missing from y: scored 0
    mixed = rankmeter.compare_per_query(
        {"x": ([1, 2], ["rr"], [[1.0], [0.5]]), "y": (["1", "2"], ["rr"], [[1.0], [1.0]])}
    )
    assert mixed.query_ids.tolist() == ["1", "2"]  # ids of different types are matched by their text
