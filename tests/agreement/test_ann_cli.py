"""``rankmeter retrieval QUERIES DATABASE --ann FILE``: ANN recall@k from files, errors as one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import rankmeter
from rankmeter.cli.main import main

BASE = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [4.0, 4.0]], dtype=np.float32)
QUERIES = np.array([[0.0, 0.0], [4.0, 4.0]], dtype=np.float32)
ANN = np.array([[0, 1, 2], [4, 2, 3]])


def _write(tmp_path: Path) -> dict[str, str]:
    paths = {"q": tmp_path / "q.fbin", "db": tmp_path / "db.fvecs", "ann": tmp_path / "ann.ivecs"}
    paths["q"].write_bytes(np.array(QUERIES.shape, "<u4").tobytes() + QUERIES.astype("<f4").tobytes())
    fvecs = np.concatenate([np.full((len(BASE), 1), 2, "<i4").view("<f4"), BASE.astype("<f4")], axis=1)
    paths["db"].write_bytes(fvecs.tobytes())
    ivecs = np.concatenate([np.full((len(ANN), 1), 3, "<i4"), ANN.astype("<i4")], axis=1)
    paths["ann"].write_bytes(ivecs.tobytes())
    return {k: str(v) for k, v in paths.items()}


def test_ann_recall_json_equals_the_api(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path)
    args = ["retrieval", f["q"], f["db"], "--ann", f["ann"], "-k", "2", "--metric", "euclidean", "--format", "json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    want = rankmeter.ann_recall(ANN, 2, queries=QUERIES, base=BASE)
    # query 0: distinct points at 0 (two copies) and 1 (two tied): ids 0, 1 are one point -> 1/2
    assert out["aggregate"] == want.aggregate == {"ann_recall@2": 0.75}


def test_ann_recall_from_exact_lists(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path)
    np.save(tmp_path / "gt.npy", np.array([[0, 1, 2, 3], [4, 2, 3, 0]]))
    np.save(tmp_path / "gd.npy", np.array([[0.0, 0.0, 1.0, 1.0], [0.0, 25.0, 25.0, 32.0]]))
    args = [*("retrieval", f["q"], f["db"], "--ann", f["ann"], "--metric", "euclidean", "--format", "csv")]
    args += ["--exact-ids", str(tmp_path / "gt.npy"), "--exact-distances", str(tmp_path / "gd.npy")]
    assert main(args) == 0
    assert "all,ann_recall@3,0.8333333333333333" in capsys.readouterr().out


def test_labels_are_still_required_without_ann(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    np.save(tmp_path / "q.npy", QUERIES)
    assert main(["retrieval", str(tmp_path / "q.npy"), str(tmp_path / "q.npy"), "--metric", "euclidean"]) == 1
    assert "--query-labels and --database-labels are required (or --ann FILE" in capsys.readouterr().err


def test_hamming_is_refused_for_ann_recall(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = _write(tmp_path)
    assert main(["retrieval", f["q"], f["db"], "--ann", f["ann"]]) == 1
    assert "metric 'hamming': ANN recall takes one of euclidean, cosine, inner" in capsys.readouterr().err
