"""A query named ``all`` (the aggregate rows' name) is refused by per-query CSV and trec-style text, kept apart in JSON."""

from __future__ import annotations

import json

import pytest

import rankmeter
from rankmeter.cli.main import main

QRELS = {"all": {"a": 1}, "q": {"a": 1}}
RUN = {"all": {"a": 1.0}, "q": {"b": 1.0, "a": 0.5}}
AMBIGUOUS = r"query 'all': per-query {} names its aggregate rows 'all', so this query could not be told from them"


@pytest.fixture
def result() -> rankmeter.EvaluationResult:
    return rankmeter.evaluate(QRELS, RUN, "rr")


def test_per_query_csv_refuses_a_query_named_all(result) -> None:
    with pytest.raises(rankmeter.InputFormatError, match=AMBIGUOUS.format(r"CSV \(to_csv, --format csv\)")):
        result.to_csv()


def test_per_query_trec_text_refuses_a_query_named_all(result) -> None:
    form = r"trec_eval-style text \(to_trec_eval, --format trec\)"
    with pytest.raises(rankmeter.InputFormatError, match=AMBIGUOUS.format(form)):
        result.to_trec_eval(per_query=True)
    assert result.to_trec_eval() == f"{'rr':<22}\tall\t0.7500\n"  # the aggregate alone is unambiguous: (1 + 1/2) / 2


def test_systems_csv_refuses_a_query_named_all(result) -> None:
    systems = rankmeter.evaluate(QRELS, {"x": RUN, "y": RUN}, "rr")
    with pytest.raises(rankmeter.InputFormatError, match=AMBIGUOUS.format(r"CSV \(to_csv, --format csv\)")):
        systems.to_csv()


def test_json_and_frames_keep_the_aggregate_apart(result) -> None:
    data = json.loads(result.to_json())
    assert data["aggregate"] == {"rr": 0.75}
    assert data["per_query"] == [{"query_id": "all", "measure": "rr", "value": 1.0},
                                 {"query_id": "q", "measure": "rr", "value": 0.5}]  # fmt: skip
    assert result.to_pandas()["query_id"].tolist() == ["all", "q"]  # per-query rows only


def test_other_ids_write_as_before() -> None:
    res = rankmeter.evaluate({"All": {"a": 1}, "all ": {"a": 1}}, {"All": {"a": 1.0}, "all ": {"a": 1.0}}, "rr")
    assert res.to_csv().splitlines()[1:] == ["All,rr,1.0", "all ,rr,1.0", "all,rr,1.0"]


def test_the_command_line_reports_the_query(write, capsys) -> None:
    qrels = write("qrels.txt", "all 0 a 1\nq 0 a 1\n")
    run = write("run.txt", "all Q0 a 1 1.0 s\nq Q0 b 1 2.0 s\nq Q0 a 2 1.0 s\n")
    assert main(["evaluate", str(qrels), str(run), "-m", "rr", "--format", "csv"]) == 1
    assert (
        "error: query 'all': per-query CSV (to_csv, --format csv) names its aggregate rows" in capsys.readouterr().err
    )
    assert main(["evaluate", str(qrels), str(run), "-m", "rr", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["aggregate"] == {"rr": 0.75}
