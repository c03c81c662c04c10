"""W5: top-K recommendation lists at MovieLens-20M scale, rankmeter against the recommender libraries.

W5 (synthetic, MovieLens-20M's shape): 138,000 users, 27,000 items, each user's top 100 (distinct items,
none of the user's ~20 training items: the lists are drawn from the items outside them) and a held-out
truth of 1-30 items, about a third of them in the list at random ranks. Measures: ``ndcg@10``, ``r@20``,
``map(divisor=min)@10`` and ``success@10``. Each contender runs in a fresh child process that loads the
same arrays (the lists, users x 100, and the truth as CSR) and turns them into its own input; wall and
CPU time (user + system, all threads: on a shared machine the steadier figure) are measured inside the
child from the loaded arrays to the values (imports and loading excluded); the peak RSS is the child's. Contenders:

* rankmeter: ``rankmeter.evaluate`` on two pandas frames (truth ``user_id, item_id``; run ``user_id,
  item_id, score = -rank``), the four measures and ``map@10`` in one call, with the ids as pandas
  categoricals (read by their codes) and as plain integers (turned into text ids); ``rankmeter.evaluate``
  on ``rankmeter.ranked_lists(lists)`` (the users x 100 array of item ids) and
  ``rankmeter.interactions(truth)`` (the CSR matrix); and
  ``rankmeter.evaluate_arrays`` on RecBole's layout made dense: each user's row holds the list's hits in
  rank order, then the user's relevant items the list missed, below it (every cutoff is within the list,
  and R is the row's relevant count);
* rectools: ``calc_metrics`` with ``NDCG(10, divide_by_achievable=True)``, ``Recall(20)``, ``HitRate(10)``
  and ``MAP(10)`` (rectools divides AP by R or by k, never by min(R, k): its value is checked against
  rankmeter's ``map@10``);
* Microsoft Recommenders' ``python_evaluation``: ``ndcg_at_k``, ``recall_at_k``, ``map_at_k`` (no hit rate);
* RecBole: its metric classes' ``metric_info`` (``NDCG``, ``Recall``, ``MAP``, ``Hit``) on its layout, the
  users x 100 matrix of hits and each user's number of relevant items, averaged as its ``topk_result``;
* torchmetrics: ``RetrievalNormalizedDCG(top_k=10)``, ``RetrievalRecall(top_k=20)``,
  ``RetrievalHitRate(top_k=10)`` on flat ``preds, target, indexes`` (the relevant items missing from a list
  appended with score 0 so that the ideal and R see them; its ``RetrievalMAP(top_k)`` divides by the
  relevant items found in the top k, another measure, and is not run).

contender                                                      CPU s    wall s   peak RSS MB
=============================================================  =======  =======  ===========
rankmeter ``evaluate_arrays`` (hit matrix, missed appended)       1.52     4.1        922
rankmeter ``evaluate``, pandas frames, categorical ids            3.97    25.6       2196
rankmeter ``evaluate``, pandas frames, integer ids                3.61    19.4       2274
rankmeter ``evaluate``, ``ranked_lists`` + ``interactions``       3.56    12.1       1851
RecBole ``metric_info`` on (pos_index, pos_len)                   1.35     4.7        922
rectools ``calc_metrics``                                         7.65    21.7       2190
=============================================================  =======  =======  ===========

Microsoft Recommenders' ``python_evaluation`` took 61.2 CPU-s (5,735 MB) and torchmetrics 52.3 CPU-s in
other invocations. The goal (rankmeter at least 10x the fastest library) is not met: from the same
integer ids rankmeter takes 0.47x rectools' CPU (2.1x faster) but 2.7x RecBole's, whose timing starts
from the same arrays and builds its hit matrix with one ``searchsorted`` of sorted integer keys, the
least work any tool starting from item ids does; rankmeter also checks for repeated pairs, ranks by
score with the tie rule and keeps every input form. Integer ids are coded as integers (no row is written
as text) and joined through their codes (``rankmeter.ids.match.coded_join``).
=======
Every library's values must agree with rankmeter's (to 1e-9, torchmetrics' float32 to 1e-5). The table
gives wall and CPU time (the steadier figure on a shared machine) and peak RSS; the figures are on
docs/performance.md.

The first table (``--parts``) splits the hit-matrix contenders: turning item ids into the hit matrix,
RecBole's ``metric_info``, rankmeter's ``evaluate_arrays``, and one NumPy pass computing the four
measures over the same matrix (the floor), which bounds what any tool can gain over RecBole there.

It needs the recommender libraries: run it in their environment (``.ci/run`` builds ``.venv-ci-recsys``
from ``tests_recsys_oracles/requirements.txt``)::

    nice .venv-ci-recsys/bin/python benchmarks/bench_recsys.py                # W5
    nice .venv-ci-recsys/bin/python benchmarks/bench_recsys.py --users 20000  # a smaller W5
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import agree, run_child  # noqa: E402

K = 100
STRIDES = np.array([7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47], dtype=np.int64)  # coprime to 27,000


def make_w5(n_users: int, n_items: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Lists (users x K) and truth (CSR), distinct items per user from an arithmetic progression mod n_items.

    Positions 0..K-1 of a user's progression are the list, K..K+19 the training items (never listed),
    the truth takes hits at random list positions and the rest from positions K+20 on.
    """
    rng = np.random.default_rng(seed)
    offset = rng.integers(0, n_items, n_users)
    stride = STRIDES[rng.integers(0, len(STRIDES), n_users)]
    steps = np.arange(K + 20 + 30, dtype=np.int64)
    items = ((offset[:, None] + stride[:, None] * steps[None, :]) % n_items).astype(np.int32)
    lists = items[:, :K]
    n_rel = rng.integers(1, 31, n_users)
    n_hit = rng.binomial(n_rel, 0.35)
    keys = rng.random((n_users, K)).argsort(axis=1)  # a random order of list positions per user
    truth_rows = []
    for take in range(30):
        users = np.flatnonzero(take < n_rel)
        hit = take < n_hit[users]
        pos = np.where(hit, keys[users, np.minimum(take, K - 1)], K + 20 + take - n_hit[users])
        truth_rows.append(np.stack([users, items[users, pos]], axis=1))
    pairs = np.concatenate(truth_rows)
    pairs = pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]
    indptr = np.concatenate(([0], np.cumsum(np.bincount(pairs[:, 0], minlength=n_users)))).astype(np.int64)
    return {"lists": lists, "indptr": indptr, "truth": pairs[:, 1].astype(np.int32), "n_items": np.array(n_items)}


LOAD = """
import json, sys, time
import numpy as np
d = np.load(sys.argv[1])
lists, indptr, truth, n_items = d["lists"], d["indptr"], d["truth"], int(d["n_items"])
n_users, k_list = lists.shape
truth_users = np.repeat(np.arange(n_users), np.diff(indptr))
start, cpu = time.perf_counter(), time.process_time()
"""

HITS = """
keys = truth_users.astype(np.int64) * n_items + truth  # sorted: users in order, items sorted per user
list_keys = np.arange(n_users, dtype=np.int64)[:, None] * n_items + lists
found = np.minimum(np.searchsorted(keys, list_keys), len(keys) - 1)
hit = keys[found] == list_keys  # users x k_list: is the item at each rank relevant
"""

RANKMETER = (
    """
import pandas as pd
import rankmeter
"""
    + LOAD
    + """
if sys.argv[2] == "category":  # ids as pandas categoricals: rankmeter reads their codes
    users, items = pd.Index(np.arange(n_users)), pd.Index(np.arange(n_items))
    run_users = pd.Categorical.from_codes(np.repeat(np.arange(n_users), k_list), categories=users)
    run_items = pd.Categorical.from_codes(lists.ravel(), categories=items)
    qrels_users = pd.Categorical.from_codes(truth_users, categories=users)
    qrels_items = pd.Categorical.from_codes(truth, categories=items)
else:
    run_users, run_items, qrels_users, qrels_items = np.repeat(np.arange(n_users), k_list), lists.ravel(), truth_users, truth
run = pd.DataFrame({"user_id": run_users, "item_id": run_items,
                    "score": -np.tile(np.arange(1, k_list + 1, dtype=np.float64), n_users)})
qrels = pd.DataFrame({"user_id": qrels_users, "item_id": qrels_items, "relevance": np.ones(len(truth), dtype=np.int64)})
res = rankmeter.evaluate(qrels, run, ["ndcg@10", "r@20", "map(divisor=min)@10", "success@10", "map@10"])
print(json.dumps({**res.aggregate, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

RANKMETER_LISTS = (
    """
import scipy.sparse as sp
import rankmeter
"""
    + LOAD
    + """
truth_matrix = sp.csr_matrix((np.ones(len(truth)), truth, indptr), shape=(n_users, n_items))
res = rankmeter.evaluate(rankmeter.interactions(truth_matrix), rankmeter.ranked_lists(lists),
                         ["ndcg@10", "r@20", "map(divisor=min)@10", "success@10", "map@10"])
print(json.dumps({**res.aggregate, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

RANKMETER_DENSE = (
    """
import rankmeter
"""
    + LOAD
    + HITS
    + """
missed = np.diff(indptr) - hit.sum(axis=1)  # relevant items outside the list: appended below it
width = k_list + int(missed.max(initial=0))
y_true = np.zeros((n_users, width), dtype=np.float32)
y_true[:, :k_list] = hit
y_true[:, k_list:] = np.arange(width - k_list)[None, :] < missed[:, None]
y_score = np.broadcast_to(np.arange(width, 0, -1, dtype=np.float32), (n_users, width))
res = rankmeter.evaluate_arrays(y_true, y_score, ["ndcg@10", "r@20", "map(divisor=min)@10", "success@10", "map@10"])
print(json.dumps({**res.aggregate, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

RECTOOLS = (
    """
import pandas as pd
from rectools import Columns
from rectools.metrics import MAP, NDCG, HitRate, Recall, calc_metrics
"""
    + LOAD
    + """
reco = pd.DataFrame({Columns.User: np.repeat(np.arange(n_users), k_list), Columns.Item: lists.ravel(),
                     Columns.Rank: np.tile(np.arange(1, k_list + 1), n_users)})
interactions = pd.DataFrame({Columns.User: truth_users, Columns.Item: truth})
metrics = {"ndcg@10": NDCG(k=10, divide_by_achievable=True), "r@20": Recall(k=20), "success@10": HitRate(k=10),
           "map@10": MAP(k=10)}
out = calc_metrics(metrics, reco, interactions)
print(json.dumps({**{k: float(v) for k, v in out.items()}, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

MS_RECOMMENDERS = (
    """
import pandas as pd
from recommenders.evaluation import python_evaluation as pe
"""
    + LOAD
    + """
pred = pd.DataFrame({"userID": np.repeat(np.arange(n_users), k_list), "itemID": lists.ravel(),
                     "prediction": np.tile(np.arange(k_list, 0, -1, dtype=np.float64), n_users)})
true = pd.DataFrame({"userID": truth_users, "itemID": truth, "rating": np.ones(len(truth))})
out = {"ndcg@10": pe.ndcg_at_k(true, pred, k=10), "r@20": pe.recall_at_k(true, pred, k=20),
       "map(divisor=min)@10": pe.map_at_k(true, pred, k=10)}
print(json.dumps({**{k: float(v) for k, v in out.items()}, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

RECBOLE = (
    """
import numpy as np
setattr(np, "float", float); setattr(np, "bool", bool)  # aliases RecBole 1.2.1 still uses
from recbole.evaluator import metrics
"""
    + LOAD
    + HITS
    + """
pos_index = hit
pos_len = np.diff(indptr)
config = {"topk": [10, 20], "metric_decimal_place": 15}
out = {}
for cls, name, k in [("NDCG", "ndcg@10", 10), ("Recall", "r@20", 20), ("MAP", "map(divisor=min)@10", 10),
                     ("Hit", "success@10", 10)]:
    m = getattr(metrics, cls)(config)
    rows = m.metric_info(pos_index[:, :20], pos_len) if cls in ("NDCG", "Recall", "MAP") else m.metric_info(pos_index[:, :20])
    out[name] = float(m.topk_result(cls.lower(), rows)[f"{cls.lower()}@{k}"])
print(json.dumps({**out, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

TORCHMETRICS = (
    """
import torch
from torchmetrics.retrieval import RetrievalHitRate, RetrievalNormalizedDCG, RetrievalRecall
"""
    + LOAD
    + HITS
    + """
listed = hit
missing = ~np.isin(keys, list_keys.ravel())  # relevant items outside the lists: score 0, below every listed one
indexes = torch.from_numpy(np.concatenate([np.repeat(np.arange(n_users), k_list), keys[missing] // n_items]))
preds = torch.from_numpy(np.concatenate([np.tile(np.arange(k_list, 0, -1, dtype=np.float32), n_users),
                                         np.zeros(int(missing.sum()), dtype=np.float32)]))
target = torch.from_numpy(np.concatenate([listed.ravel(), np.ones(int(missing.sum()), dtype=bool)]))
out = {}
for name, metric in [("ndcg@10", RetrievalNormalizedDCG(top_k=10)), ("r@20", RetrievalRecall(top_k=20)),
                     ("success@10", RetrievalHitRate(top_k=10))]:
    out[name] = float(metric(preds, target, indexes=indexes))
print(json.dumps({**out, "seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu}))
"""
)

# Where the time of the hit-matrix contenders goes, in one process, the parts in turns (argv[2] rounds): the
# conversion of item ids into the hit matrix that both share, RecBole's metric_info on it, rankmeter's
# evaluate_arrays on it (its dense rows built, then the call), and the floor: one NumPy pass over the same
# matrix computing the four measures by their formulas (no ties, no checks, every user has R >= 1).
PARTS = (
    """
import numpy as np
setattr(np, "float", float); setattr(np, "bool", bool)  # aliases RecBole 1.2.1 still uses
from recbole.evaluator import metrics
import rankmeter
"""
    + LOAD
    + """
def cpu_of(fn):
    c = time.process_time(); out = fn(); return time.process_time() - c, out

def hits():
"""
    + "\n".join("    " + line for line in HITS.strip().splitlines())
    + """
    return hit

def recbole(hit):
    pos_len, out = np.diff(indptr), {}
    config = {"topk": [10, 20], "metric_decimal_place": 15}
    for cls, name, k in [("NDCG", "ndcg@10", 10), ("Recall", "r@20", 20), ("MAP", "map(divisor=min)@10", 10),
                         ("Hit", "success@10", 10)]:
        m = getattr(metrics, cls)(config)
        rows = m.metric_info(hit[:, :20], pos_len) if cls != "Hit" else m.metric_info(hit[:, :20])
        out[name] = float(m.topk_result(cls.lower(), rows)[f"{cls.lower()}@{k}"])
    return out

def rankmeter_dense(hit):
    missed = np.diff(indptr) - hit.sum(axis=1)
    width = k_list + int(missed.max(initial=0))
    y_true = np.zeros((n_users, width), dtype=np.float32)
    y_true[:, :k_list] = hit
    y_true[:, k_list:] = np.arange(width - k_list)[None, :] < missed[:, None]
    y_score = np.broadcast_to(np.arange(width, 0, -1, dtype=np.float32), (n_users, width))
    return rankmeter.evaluate_arrays(y_true, y_score, ["ndcg@10", "r@20", "map(divisor=min)@10", "success@10"]).aggregate

def floor(hit):
    r = np.diff(indptr).astype(np.float64)
    top = hit[:, :10].astype(np.float64)
    disc = 1.0 / np.log2(np.arange(2, 12))
    ideal = np.cumsum(disc)[np.minimum(r, 10).astype(np.int64) - 1]
    precision = np.cumsum(top, axis=1) / np.arange(1, 11)
    return {"ndcg@10": float(np.mean(top @ disc / ideal)),
            "r@20": float(np.mean(np.count_nonzero(hit[:, :20], axis=1) / r)),
            "map(divisor=min)@10": float(np.mean((precision * top).sum(axis=1) / np.minimum(r, 10))),
            "success@10": float(np.mean(top.any(axis=1)))}

parts = {"ids -> hit matrix": [], "RecBole metric_info": [], "rankmeter evaluate_arrays": [], "floor": []}
for _ in range(int(sys.argv[2])):
    seconds, hit = cpu_of(hits)
    parts["ids -> hit matrix"].append(seconds)
    for name, fn in (("RecBole metric_info", recbole), ("rankmeter evaluate_arrays", rankmeter_dense),
                     ("floor", floor)):
        seconds, values = cpu_of(lambda: fn(hit))
        parts[name].append(seconds)
        parts[name + " values"] = values
print(json.dumps(parts))
"""
)


def print_parts(path: str, rounds: int) -> None:
    """The table of :data:`PARTS`: CPU seconds of each part (medians and range), and whether the values agree."""
    found, _, peak = run_child(PARTS, path, str(rounds))
    reference = found["floor values"]
    print(
        f"\n## Where the hit-matrix time goes (one process, the parts in turns, {rounds} rounds; peak RSS {peak:.0f} MB)\n"
    )
    print("| part | CPU s, median (range) | / the floor | values against the floor |")
    print("|---|---:|---:|---|")
    floor = float(np.median(found["floor"]))
    for name in ("ids -> hit matrix", "RecBole metric_info", "rankmeter evaluate_arrays", "floor"):
        cpu = found[name]
        note = agree(reference, found[name + " values"], 1e-12) if name + " values" in found else ""
        print(
            f"| {name} | {np.median(cpu):.3f} ({min(cpu):.3f}-{max(cpu):.3f}) | {np.median(cpu) / floor:.1f}x | {note} |"
        )


CONTENDERS = [  # label, code, its argument, tolerance
    ("rankmeter (pandas frames, categorical ids)", RANKMETER, "category", 1e-12),
    ("rankmeter (pandas frames, integer ids)", RANKMETER, "int", 1e-12),
    ("rankmeter ranked_lists + interactions (users x 100 ids, CSR truth)", RANKMETER_LISTS, "", 1e-12),
    ("rankmeter evaluate_arrays (hit matrix, missed items appended)", RANKMETER_DENSE, "", 1e-12),
    ("rectools calc_metrics", RECTOOLS, "", 1e-9),
    ("Microsoft Recommenders python_evaluation", MS_RECOMMENDERS, "", 1e-9),
    ("RecBole metric_info on (pos_index, pos_len)", RECBOLE, "", 1e-9),
    ("torchmetrics Retrieval* (float32)", TORCHMETRICS, "", 1e-5),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=138_000)
    parser.add_argument("--items", type=int, default=27_000)
    parser.add_argument("--rounds", type=int, default=3, help="runs of rankmeter (the median is shown)")
    parser.add_argument("--peer-rounds", type=int, default=1, help="runs of each library")
    parser.add_argument("--skip", nargs="*", default=[], help="contenders to leave out (by first word)")
    parser.add_argument("--parts", type=int, default=5, help="rounds of the where-the-time-goes table (0: none)")
    parser.add_argument("--parts-only", action="store_true", help="only the where-the-time-goes table")
    args = parser.parse_args()
    data = make_w5(args.users, args.items)
    n_truth = len(data["truth"])
    hits = int(np.isin(np.arange(args.users)[:, None] * args.items + data["lists"],
                       np.repeat(np.arange(args.users), np.diff(data["indptr"])) * args.items + data["truth"]).sum())  # fmt: skip
    print(f"W5: {args.users:,} users, {args.items:,} items, top {K} per user, {n_truth:,} held-out items, "
          f"{hits:,} of them listed")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "w5.npz")
        np.savez(path, **data)
        if args.parts:
            print_parts(path, args.parts)
        if args.parts_only:
            return
        rows: list = []
        reference: dict | None = None
        for label, code, arg, tol in CONTENDERS:
            if label.split()[0] in args.skip:
                continue
            runs = []
            for _ in range(args.rounds if label.startswith("rankmeter") else args.peer_rounds):
                try:
                    runs.append(run_child(code, path, arg))
                except RuntimeError as exc:
                    rows.append((label, None, None, None, f"failed: {str(exc).strip().splitlines()[-1][:100]}"))
                    break
            if not runs:
                continue
            values = {k: v for k, v in runs[0][0].items() if k not in ("seconds", "cpu")}
            seconds = float(np.median([r[0]["seconds"] for r in runs]))
            cpu = float(np.median([r[0]["cpu"] for r in runs]))
            rss = max(r[2] for r in runs)
            if reference is None:
                reference, note = values, "reference"
            else:
                note = agree(reference, values, tol) + f" ({', '.join(values)})"
            rows.append((label, seconds, cpu, rss, note))
    print(f"\n## W5 ({args.users:,} users x top {K}): from the loaded arrays to the values\n")
    print("| tool | wall s | CPU s | CPU / rankmeter's | wall / rankmeter's | peak RSS MB | values |")
    print("|---|---:|---:|---:|---:|---:|---|")
    base = rows[0] if rows and rows[0][1] is not None else None
    for label, seconds, cpu, rss, note in rows:
        if seconds is None:
            print(f"| {label} | – | – | – | – | – | {note} |")
            continue
        ratios = f"{cpu / base[2]:.1f}x | {seconds / base[1]:.1f}x" if base else "– | –"
        print(f"| {label} | {seconds:.3f} | {cpu:.3f} | {ratios} | {rss:.0f} | {note} |")
    assert reference is not None
    print("\nrankmeter:", {k: round(v, 6) for k, v in reference.items()})


if __name__ == "__main__":
    main()
