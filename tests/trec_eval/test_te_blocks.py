"""The drop-in reads a large run in blocks of whole topics; what it prints must not change by a byte."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from rankmeter.trec_eval import app
from rankmeter.trec_eval.app import run_trec_eval


def _files(tmp_path: Path, seed: int) -> tuple[str, str]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(30):
        qid = f"{q * 7 % 30 + 1}"  # numeric ids: string order differs from the file's order
        for d in rng.choice(120, size=20, replace=False):
            grade = rng.choice(["0", "1", "2", "-1", "1.5", "3"])
            qrels.append(f"{qid} 0 D{d} {grade}")
        if q % 9 == 4:
            continue  # judged, without results
        for rank, d in enumerate(rng.choice(120, size=int(rng.integers(1, 60)), replace=False), 1):
            run.append(f"{qid} Q0 D{d} {rank} {rng.integers(0, 6) / 2} tag{seed}")
    run += [f"999 Q0 D1 1 1.0 last{seed}"]  # results without judgments
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / "run").write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / "run")


def _trec_eval(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_trec_eval(argv, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize(
    "flags",
    [[], ["-q"], ["-c", "-q"], ["-q", "-c", "-M", "7"], ["-J", "-l", "2", "-q"], ["-m", "all_trec", "-q", "-c"],
     ["-m", "relstring.12", "-m", "gm_map", "-m", "utility", "-q", "-c", "-N", "200"]],
)  # fmt: skip
def test_blocks_print_what_the_whole_read_prints(tmp_path, monkeypatch, seed, flags) -> None:
    qrels, run = _files(tmp_path, seed)
    whole = _trec_eval([*flags, qrels, run])  # under BLOCK_BYTES: read whole
    monkeypatch.setattr(app, "BLOCK_BYTES", 300)  # blocks of a few topics
    tables = []

    def spy(*args, **kwargs):
        tables.append(blockwise(*args, **kwargs))
        return tables[-1]

    blockwise = app.evaluate_qrels_in_blocks
    monkeypatch.setattr(app, "evaluate_qrels_in_blocks", spy)
    blocks = _trec_eval([*flags, qrels, run])
    assert len(tables) == 1 and tables[0] is not None  # read in blocks, not by the fallback
    assert whole == blocks
    assert whole[0] == 0 and "all" in whole[1]


def test_blocks_fall_back_to_the_whole_read_for_its_errors_and_formats(tmp_path, monkeypatch) -> None:
    qrels, run = _files(tmp_path, 9)
    text = Path(run).read_text().splitlines()
    cases = {
        "bad_score": text[:200] + [text[200].rsplit(" ", 2)[0] + " abc tag"] + text[201:],  # a later block
        "tabs": [line.replace(" ", "\t") for line in text],  # the exact reader's file
        "interleaved": text[100:] + text[:100],  # a topic's lines apart
        "duplicate": text[:150] + [text[149]] + text[150:],
    }
    for name, lines in cases.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        monkeypatch.setattr(app, "BLOCK_BYTES", 1 << 30)
        whole = _trec_eval(["-q", "-c", qrels, str(path)])
        monkeypatch.setattr(app, "BLOCK_BYTES", 300)
        assert _trec_eval(["-q", "-c", qrels, str(path)]) == whole, name
