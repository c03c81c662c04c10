"""``rankmeter retrieval`` end to end: array files in, table / JSON / CSV out, errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from rankmeter.cli.main import main
from rankmeter.vectors import VECTOR_TIES, evaluate_vectors

QUERY = np.array([[1, 1, -1, -1]])
DATABASE = np.array(
    [
        [1, 1, -1, -1],
        [1, -1, -1, -1],
        [-1, 1, -1, -1],
        [1, 1, 1, -1],
        [-1, -1, 1, 1],
        [1, -1, 1, -1],
        [-1, -1, -1, -1],
        [1, 1, 1, 1],
    ]
)
QL = np.array([[1, 1, 0]])
DL = np.array([[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 0], [0, 1, 0], [1, 1, 1]])


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, arr in (("q", QUERY), ("db", DATABASE), ("ql", QL), ("dl", DL)):
        p = tmp_path / f"{name}.npy"
        np.save(p, arr)
        paths[name] = str(p)
    return paths


def _args(files: dict[str, str], *extra: str) -> list[str]:
    return [
        "retrieval",
        files["q"],
        files["db"],
        "--query-labels",
        files["ql"],
        "--database-labels",
        files["dl"],
        *extra,
    ]


def test_table_with_r7_values(files, capsys) -> None:
    rc = main(_args(files, "-m", "ndcg(gain=exp)@[3,8]", "-m", "map@5", "--radius", "1"))
    out = capsys.readouterr().out
    assert rc == 0
    assert "ndcg(gain=exp)@3" in out and "p(radius=1)" in out
    assert "0.4650" in out and "0.7360" in out and "0.5426" in out and "0.7500" in out
    assert "ties=expected" in out


@pytest.mark.parametrize("ties", ["expected", "stable", "optimistic", "pessimistic"])
def test_json_equals_the_api(files, capsys, ties: str) -> None:
    rc = main(_args(files, "-m", "ndcg@[1,5]", "-m", "map", "--ties", ties, "--format", "json"))
    data = json.loads(capsys.readouterr().out)
    assert rc == 0
    api = evaluate_vectors(QUERY, DATABASE, ["ndcg@[1,5]", "map"], query_labels=QL, database_labels=DL, ties=ties)
    assert data["aggregate"] == pytest.approx(api.aggregate, abs=1e-15)
    assert data["metadata"]["ties"] == ties and data["metadata"]["input"] == "vectors"
    assert [row["query_id"] for row in data["per_query"]] == ["0", "0", "0"]


def test_ties_are_the_vector_policies(files, capsys) -> None:
    """``--ties`` offers the policies the vector paths rank (:data:`rankmeter.core.ties.VECTOR_TIES`), no ``trec``."""
    with pytest.raises(SystemExit):
        main(_args(files, "--ties", "trec"))
    choices = ", ".join(repr(t) for t in VECTOR_TIES)
    assert f"argument --ties: invalid choice: 'trec' (choose from {choices})" in capsys.readouterr().err


def test_csv_exclude_self_batch_and_output_file(files, tmp_path: Path) -> None:
    np.save(tmp_path / "dbl.npy", DL)
    out = tmp_path / "res.csv"
    rc = main(
        [
            "retrieval",
            files["db"],
            files["db"],
            "--query-labels",
            files["dl"],
            "--database-labels",
            str(tmp_path / "dbl.npy"),
            "-m",
            "map",
            "--exclude-self",
            "--batch-size",
            "3",
            "--format",
            "csv",
            "-o",
            str(out),
        ]
    )
    assert rc == 0
    text = out.read_text()
    api = evaluate_vectors(DATABASE, DATABASE, "map", query_labels=DL, database_labels=DL, exclude_self=True)
    assert text.splitlines()[0] == "query_id,measure,value"
    assert f"all,map,{api['map']!r}" in text


def test_other_formats_and_metric(tmp_path: Path, capsys) -> None:
    rng = np.random.default_rng(0)
    q, db = rng.standard_normal((5, 3)), rng.standard_normal((20, 3))
    ql, dl = rng.integers(0, 3, 5), rng.integers(0, 3, 20)
    np.savez(tmp_path / "x.npz", q=q, db=db)
    np.savetxt(tmp_path / "ql.txt", ql)
    np.savetxt(tmp_path / "dl.csv", dl[:, None], delimiter=",")
    rc = main(
        [
            "retrieval",
            f"{tmp_path / 'x.npz'}:q",
            f"{tmp_path / 'x.npz'}:db",
            "--query-labels",
            str(tmp_path / "ql.txt"),
            "--database-labels",
            str(tmp_path / "dl.csv"),
            "--metric",
            "cosine",
            "--relevance",
            "same_class",
            "-m",
            "ndcg@5",
            "--format",
            "json",
        ]
    )
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    # np.loadtxt reads a one-column CSV as a 1-D vector: class indices
    api = evaluate_vectors(
        q,
        db,
        "ndcg@5",
        query_labels=ql.astype(float),
        database_labels=dl.astype(float),
        metric="cosine",
        relevance="same_class",
    )
    assert data["aggregate"]["ndcg@5"] == pytest.approx(api["ndcg@5"], abs=1e-15)


def test_default_measures(files, capsys) -> None:
    assert main(_args(files)) == 0
    out = capsys.readouterr().out
    for name in ("ndcg@10", "ndcg@100", "map@1000", "p@10"):
        assert name in out


@pytest.mark.parametrize(
    ("extra", "message", "status"),
    [
        (["--query-labels", "missing.npy"], "query labels: file not found: missing.npy", 1),
        (["-m", "ndgc@5"], "unknown measure 'ndgc'", 2),
        (["--metric", "cosine", "--radius", "2"], "Hamming radius needs metric='hamming'", 2),
    ],
)
def test_errors_are_one_line(files, capsys, extra: list[str], message: str, status: int) -> None:
    args = _args(files, *extra)
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == status  # 1: the input is wrong, 2: the command line is
    assert err.startswith("rankmeter retrieval: error: ") and message in err
    assert err.count("\n") == 1


def test_npz_with_several_arrays_needs_a_name(tmp_path: Path, files, capsys) -> None:
    np.savez(tmp_path / "two.npz", a=QUERY, b=QUERY)
    rc = main(
        [
            "retrieval",
            str(tmp_path / "two.npz"),
            files["db"],
            "--query-labels",
            files["ql"],
            "--database-labels",
            files["dl"],
        ]
    )
    assert rc == 1
    assert "holds 2 arrays (a, b); pick one with" in capsys.readouterr().err
