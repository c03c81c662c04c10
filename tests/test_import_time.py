"""What ``import rankmeter`` loads, and the measure tables it defers until their first use.

Each check runs in a fresh interpreter, where nothing has been imported yet.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

HEAVY = (
    "pyarrow",
    "scipy",
    "pandas",
    "polars",
    "rich",
    "matplotlib",
    "pyspark",
    "dask",
    "distributed",
    "multiprocessing",
)
DEFERRED = (
    "rankmeter.measures.registry",
    "rankmeter.measures.trec_families",
    "rankmeter.measures.kernels.dcg",
    "rankmeter.measures.kernels.trec",
    "rankmeter.io.trec",
)


def fresh(code: str) -> Any:
    """The JSON a snippet prints, run by a new interpreter."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def test_import_loads_no_optional_dependency_and_no_deferred_module() -> None:
    loaded = fresh(
        f"import json, sys, rankmeter\nprint(json.dumps([m for m in {HEAVY + DEFERRED!r} if m in sys.modules]))"
    )
    assert loaded == []


def test_tables_fill_on_first_use_in_registry_order() -> None:
    got = fresh(
        "import json, rankmeter\n"
        "from rankmeter.measures import ALIASES, FAMILIES, registry, trec_families\n"
        "f, a = rankmeter.measures.FAMILIES, ALIASES\n"
        "print(json.dumps({'same': f is FAMILIES and f is rankmeter.measures.FAMILIES,\n"
        "  'families': list(f), 'aliases': list(a.items()),\n"
        "  'expected': list(registry.tables()[0]), 'expected_aliases': list(registry.tables()[1].items()),\n"
        "  'trec': [x.name for x in trec_families.FAMILIES],\n"
        "  'parsed': str(rankmeter.parse('gmap')), 'is_dict': isinstance(f, dict)}))"
    )
    assert got["same"] and got["is_dict"]
    assert got["families"] == got["expected"]
    assert got["families"][:3] == ["ndcg", "dcg", "idcg"] and "yaap" in got["families"]
    assert set(got["trec"]) <= set(got["families"])
    assert got["aliases"] == got["expected_aliases"]
    assert got["parsed"] == "gm_map"


def test_first_use_from_many_threads_sees_the_whole_table() -> None:
    got = fresh(
        "import json, threading, rankmeter\n"
        "start, seen = threading.Barrier(8), []\n"
        "def use():\n"
        "    start.wait()\n"
        "    seen.append((len(rankmeter.measures.FAMILIES), str(rankmeter.parse('rbp_residual'))))\n"
        "threads = [threading.Thread(target=use) for _ in range(8)]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(json.dumps({'seen': seen, 'total': len(rankmeter.measures.FAMILIES)}))"
    )
    assert got["seen"] == [[got["total"], "rbp_resid"]] * 8


def test_lazy_public_names_are_the_real_ones() -> None:
    got = fresh(
        "import json, rankmeter, rankmeter.io.trec as trec, rankmeter.io.tables as tables\n"
        "ns = {}; exec('from rankmeter import *', ns)\n"
        "print(json.dumps([rankmeter.read_qrels is trec.read_qrels, rankmeter.io.read_run is trec.read_run,\n"
        "  ns['read_run'] is trec.read_run, ns['Qrels'] is tables.Qrels, rankmeter.Run is rankmeter.io.Run,\n"
        "  rankmeter.io.Run is tables.Run, {'Qrels', 'read_qrels'} <= set(dir(rankmeter)),\n"
        "  {'Run', 'read_run'} <= set(dir(rankmeter.io))]))"
    )
    assert got == [True] * 8


def test_cli_evaluate_of_small_trec_files_loads_no_optional_dependency(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """W2-sized plain files are parsed by NumPy: no pyarrow (its import cost more than the parse), nor stats,
    nor a family module beyond the core ones."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n")
    run.write_text("q1 Q0 a 1 2.5 bm25\nq1 Q0 b 2 1.5 bm25\nq2 Q0 c 1 0.5 bm25\n")
    got = fresh(
        "import contextlib, io, json, sys\nfrom rankmeter.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        f"    status = main(['evaluate', {str(qrels)!r}, {str(run)!r}, '-m', 'ndcg@10', '-m', 'map'])\n"
        f"print(json.dumps([status, out.getvalue().count('1.0000'), [m for m in sys.modules if m.split('.')[0] in "
        f"{HEAVY!r} or m.startswith('rankmeter.stats') or m in {OTHER_FAMILIES!r}]]))"
    )
    assert got[0] == 0 and got[1] >= 2
    assert got[2] == []


def test_import_leaves_numpy_unloaded_and_the_entry_modules_keep_the_functions() -> None:
    """``import rankmeter`` loads no NumPy; loading the entry modules leaves ``rankmeter.evaluate`` and
    ``rankmeter.similarity`` the functions (no module bears their names)."""
    got = fresh(
        "import json, sys, rankmeter\nbefore = 'numpy' in sys.modules\n"
        "import rankmeter.by_ids, rankmeter.by_arrays, rankmeter.agreement, rankmeter.stats\n"
        "from rankmeter.by_ids import evaluate\nfrom rankmeter.agreement import similarity\n"
        "print(json.dumps([before, rankmeter.evaluate is evaluate, rankmeter.similarity is similarity,\n"
        "  rankmeter.evaluate({'q': {'a': 1}}, {'q': {'a': 1.0, 'b': 2.0}}, 'rr')['rr']]))"
    )
    assert got == [False, True, True, 0.5]


def test_cli_starts_openblas_with_one_thread_for_commands_without_linear_algebra(tmp_path) -> None:  # type: ignore[no-untyped-def]
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 1\n")
    run.write_text("q1 Q0 a 1 2.5 bm25\n")
    code = (
        "import contextlib, io, json, os, sys\nfrom rankmeter.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    status = main([sys.argv[1], {str(qrels)!r}, {str(run)!r}, '-m', 'p@1'])\n"
        "print(json.dumps([status, os.environ.get('OPENBLAS_NUM_THREADS')]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}

    def launch(command: str, extra: dict[str, str]) -> list:
        done = subprocess.run(
            [sys.executable, "-c", code, command], capture_output=True, text=True, check=True, env={**env, **extra}
        )
        return json.loads(done.stdout)

    assert launch("evaluate", {}) == [0, "1"]
    assert launch("evaluate", {"OPENBLAS_NUM_THREADS": "4"}) == [0, "4"]  # the user's choice is kept
    retrieval = fresh(
        "import json, os, sys\nfrom rankmeter.cli.main import skip_blas_threads\n"
        "print(json.dumps([skip_blas_threads('retrieval'), 'numpy' in sys.modules]))"
    )
    assert retrieval == [False, False]  # embeddings multiply matrices: OpenBLAS's default, decided before NumPy


OTHER_FAMILIES = (
    "rankmeter.measures.registry",
    "rankmeter.measures.trec_families",
    "rankmeter.measures.beyond_families",
    "rankmeter.measures.diversity_families",
    "rankmeter.measures.ir_families",
    "rankmeter.measures.recsys_families",
    "rankmeter.measures.kernels.beyond",
    "rankmeter.measures.kernels.list_sets",
    "rankmeter.measures.kernels.trec",
)
"""The family modules beyond the core ones, with the kernels only they use: ndcg and map need none."""

SMALL_JOB_UNUSED = (
    "pyarrow",
    "pandas",
    "polars",
    "scipy",
    "rankmeter.streaming",
    "rankmeter.io.run_blocks",
    "rankmeter.core.candidates",
    "rankmeter.xp.on_device",
    "rankmeter.measures.kernels.diversity",
    "rankmeter.core.intents",
    *OTHER_FAMILIES,
    "rankmeter.segments",
    "rankmeter.io.dense",
    "rankmeter.io.exclude",
    "rankmeter.io.items",
    "rankmeter.io.escaping",
    "rankmeter.core.lists",
)
"""What a dict or a small TREC file evaluated for ndcg and map does not need: tables, the streaming
reader, candidates, foreign arrays, the families other than the core ones with their kernels (beyond-accuracy,
diversity, trec_eval's others), segments, dense and excluded items, the thread pool of large runs."""


def test_a_dict_and_a_small_file_load_no_stream_machinery_nor_unused_families(tmp_path) -> None:  # type: ignore[no-untyped-def]
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("q1 0 a 2\nq1 0 b 0\nq2 0 c 1\n")
    run.write_text("q1 Q0 a 1 2.5 bm25\nq1 Q0 b 2 1.5 bm25\nq2 Q0 c 1 0.5 bm25\n")
    for qrels_arg, run_arg in (
        ({"q1": {"a": 2, "b": 0}, "q2": {"c": 1}}, {"q1": {"a": 2.5, "b": 1.5}, "q2": {"c": 0.5}}),
        (str(qrels), str(run)),
    ):
        got = fresh(
            "import json, sys, rankmeter\n"
            f"res = rankmeter.evaluate({qrels_arg!r}, {run_arg!r}, ['ndcg@10', 'map'])\n"
            f"print(json.dumps([res['ndcg@10'], res['map'], [m for m in {SMALL_JOB_UNUSED!r} if m in sys.modules]]))"
        )
        assert got == [1.0, 1.0, []]
