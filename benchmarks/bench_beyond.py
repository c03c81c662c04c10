"""Beyond-accuracy measures: their cost against a matrix product and against the accuracy table.

1. ``ild@10`` for 138,000 users from 64-d item embeddings, against one batched matrix product of the
   lists' embeddings (``E[top] @ E[top].T`` per user, the least a pairwise-distance computation does).
   Timed twice: the kernel on lists already taken (``ListsContext``), and the whole ``rankmeter.evaluate``
   call from a 2-D array of ids (reading the run, ordering, ids to catalogue rows included).
2. W5's shape (138,000 users x top 100 from a 20,000-item catalogue, 10 held-out and 20 training items
   per user): the whole beyond-accuracy table (coverage, entropy, Gini, novelty, ILD, personalization,
   ARP, APLT, ACLT at 10) against the accuracy table (nDCG, recall, precision, MAP, MRR at 10), each one
   ``rankmeter.evaluate`` call with ``exclude=`` the training pairs.

3. ``--peers`` (run with the oracle environment's Python, ``tests_recsys_oracles/requirements.txt``, and
   ``PYTHONPATH=src``): the same measures computed by rectools, Microsoft Recommenders and RecBole on
   ``--peer-users`` users' top 10 (no training pair in a list: Microsoft Recommenders refuses them), each
   peer's own functions against rankmeter's ``Items(interactions=train)`` and one ``evaluate`` call for the
   same names (the training interactions read in each timed call, as the peers read them); values checked.
   Then the floor of any tool starting from these frames: their four id columns read into codes
   (``pd.factorize``), against a tenth of the fastest peer's time; and the least program for rectools' and
   RecBole's values (ids to codes, distinct training pairs, per-item counts, per-list means, nothing else;
   its values checked against the peer's), the peer and rankmeter's call, in five turns: whether even the least
   program takes under a tenth of the peer's time, and how far rankmeter is from it.

    python benchmarks/bench_beyond.py [--users 138000] [--repeats 3] [--peers --peer-users 20000]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from harness import best

import rankmeter
import rankmeter.beyond
from rankmeter.io.items import Items
from rankmeter.measures import parse
from rankmeter.measures.kernels import beyond
from rankmeter.measures.kernels.beyond_lists import ListsContext

ACCURACY = ["ndcg@10", "r@10", "p@10", "map@10", "rr@10"]
BEYOND = ["catalog_coverage@10", "entropy@10", "gini@10", "novelty@10", "ild@10", "personalization@10",
          "arp@10", "aplt@10", "aclt@10"]  # fmt: skip


def ild_part(n_users: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    n_items, dim = 20_000, 64
    embeddings = rng.normal(size=(n_items, dim))
    top = np.stack([rng.choice(n_items, 10, replace=False) for _ in range(n_users)])
    items = Items(features=embeddings, catalog=np.arange(n_items).astype(str))
    run = rankmeter.ranked_lists(top)
    ctx = ListsContext.build(run, 10, items=items)
    m = parse("ild@10")

    def product() -> np.ndarray:
        x = embeddings[top]
        return np.matmul(x, x.transpose(0, 2, 1))

    matmul, _ = best(product, repeats)
    kernel, values = best(lambda: beyond.ild(ctx, m), repeats)
    whole, res = best(lambda: rankmeter.evaluate(None, run, m, items=items), repeats)
    x = embeddings[top] / np.linalg.norm(embeddings[top], axis=2, keepdims=True)
    gram = np.matmul(x, x.transpose(0, 2, 1))
    upper = np.triu_indices(10, 1)
    check = (1 - gram[:, upper[0], upper[1]]).mean(axis=1)
    assert np.allclose(values.ravel()[np.argsort(ctx.users.astype(int))], check, atol=1e-12)
    assert abs(res["ild@10"] - check.mean()) < 1e-12
    print(f"ild@10, {n_users} users, 64-d: batched matmul {matmul:.3f} s")
    print(
        f"  kernel {kernel:.3f} s ({kernel / matmul:.2f}x the matmul); evaluate() {whole:.3f} s ({whole / matmul:.2f}x)"
    )


def table_part(n_users: int, repeats: int) -> None:
    rng = np.random.default_rng(1)
    n_items, k = 20_000, 100
    users = np.arange(n_users)
    pop = rng.zipf(1.3, size=n_items * 4) % n_items
    seen = np.stack([rng.choice(pop, 30) for _ in range(n_users)])
    train = pd.DataFrame({"user_id": np.repeat(users, 20), "item_id": seen[:, :20].ravel()}).drop_duplicates()
    test = pd.DataFrame({"user_id": np.repeat(users, 10), "item_id": seen[:, 20:].ravel()}).drop_duplicates()
    top = (np.argsort(rng.random((n_users, 2 * k)), axis=1)[:, :k] + rng.integers(0, n_items, (n_users, 1))) % n_items
    run = rankmeter.ranked_lists(top, users=users)
    items = Items(interactions=train, features=rng.normal(size=(n_items, 64)), catalog=np.arange(n_items))
    acc, a = best(lambda: rankmeter.evaluate(test, run, ACCURACY, exclude=train), repeats)
    bey, b = best(lambda: rankmeter.evaluate(test, run, BEYOND, items=items, exclude=train), repeats)
    print(f"W5 shape, {n_users} users x top {k}: accuracy table {acc:.2f} s, beyond-accuracy table {bey:.2f} s")
    print(f"  beyond / accuracy = {bey / acc:.2f}x; {len(b.aggregate)} beyond values, {len(a.aggregate)} accuracy")


def codes(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Ids as codes from 0 and how many codes: integers over a narrow span less their minimum (no hashing, codes
    of absent values unused), anything else by ``pd.factorize``."""
    if ids.dtype.kind in "iu" and len(ids):
        low, high = int(ids.min()), int(ids.max())
        if high - low < 4 * len(ids) + (1 << 16):
            return ids - low, high - low + 1
    found, distinct = pd.factorize(ids)
    return found, len(distinct)


def least_rectools(reco: pd.DataFrame, train: pd.DataFrame, n_catalog: int, k: int) -> dict[str, float]:
    """The least program for rectools' three values from the same frames: ids to codes, distinct training
    pairs, per-item user and row counts, per-list means; nothing checked, nothing else written out.

    The distinct pairs: the training rows ordered by item (a radix sort of 16-bit codes) keep their order within
    each item; when the users never go down there, a pair's repeats are adjacent (else: a sort of the pair keys).
    """
    top = reco["rank"].to_numpy() <= k
    train_item = train["item_id"].to_numpy()
    item, n_items = codes(np.concatenate([train_item, reco["item_id"].to_numpy()[top]]))
    user, n_users = codes(train["user_id"].to_numpy())
    n_train = len(train_item)
    rows_of = np.bincount(item[:n_train], minlength=n_items)
    starts = (np.cumsum(rows_of) - rows_of)[rows_of > 0]
    its_user = user[np.argsort(item[:n_train].astype(np.uint16), kind="stable")]
    new_item = np.zeros(n_train - 1, dtype=bool)
    new_item[starts[1:] - 1] = True
    if n_items <= 1 << 16 and (new_item | (its_user[1:] >= its_user[:-1])).all():
        users_of = np.zeros(n_items, dtype=np.int64)
        first = np.r_[True, new_item | (its_user[1:] != its_user[:-1])]
        users_of[rows_of > 0] = np.add.reduceat(first, starts, dtype=np.int64)
    else:
        users_of = np.bincount(np.unique(item[:n_train] * n_users + user) // n_users, minlength=n_items)
    listed = item[n_train:]
    lists, n_lists = codes(reco["user_id"].to_numpy()[top])
    length = np.bincount(lists, minlength=n_lists)
    has = length > 0
    surprise = -np.log2(np.maximum(users_of, 1) / np.count_nonzero(np.bincount(user)))  # unseen: seen by one user
    return {
        "novelty@10": float((np.bincount(lists, surprise[listed], n_lists)[has] / length[has]).mean()),
        "arp@10": float((np.bincount(lists, rows_of[listed], n_lists)[has] / length[has]).mean()),
        "catalog_coverage@10": np.count_nonzero(np.bincount(listed, minlength=n_items)) / n_catalog,
    }


def least_recbole(reco: pd.DataFrame, train: pd.DataFrame, n_catalog: int) -> dict[str, float]:
    """The least program for RecBole's three values from the same frames (full lists): recommendation counts over
    the catalogue, their Gini index and entropy, each list's mean training rows."""
    train_item = train["item_id"].to_numpy()
    item, n_items = codes(np.concatenate([train_item, reco["item_id"].to_numpy()]))
    rows_of = np.bincount(item[: len(train_item)], minlength=n_items)
    listed = item[len(train_item) :]
    lists, n_lists = codes(reco["user_id"].to_numpy())
    length = np.bincount(lists, minlength=n_lists)
    counts = np.bincount(listed, minlength=n_items)
    counts = np.sort(counts[counts > 0])
    share = counts / len(listed)
    idx = np.arange(n_catalog - len(counts) + 1, n_catalog + 1)
    return {
        "gini@10": float(np.sum((2 * idx - n_catalog - 1) * counts) / len(listed) / n_catalog),
        "recbole_entropy@10": float(-(share * np.log(share)).sum() / len(counts)),
        "arp@10": float((np.bincount(lists, rows_of[listed], n_lists)[length > 0] / length[length > 0]).mean()),
    }


def peers_part(n_users: int) -> None:
    """The peers' own functions against one rankmeter call for the same measures (values must agree)."""
    setattr(np, "float", float)  # noqa: B010  (RecBole 1.2.1 spells NumPy's removed aliases)
    setattr(np, "bool", bool)  # noqa: B010
    from recbole.evaluator import metrics as rb
    from recommenders.evaluation import python_evaluation as ms
    from rectools import Columns
    from rectools.metrics import AvgRecPopularity, CatalogCoverage, MeanInvUserFreq

    rng = np.random.default_rng(2)
    n_items, k = 20_000, 10
    pop = rng.zipf(1.3, size=n_items * 4) % n_items
    train = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), 20), "item_id": rng.choice(pop, 20 * n_users)})
    train = train.drop_duplicates().reset_index(drop=True)
    top = (np.argsort(rng.random((n_users, 2 * k)), axis=1)[:, :k] + rng.integers(0, n_items, (n_users, 1))) % n_items
    reco = pd.DataFrame({"user_id": np.repeat(np.arange(n_users), k), "item_id": top.ravel(),
                         "rank": np.tile(np.arange(1, k + 1), n_users)})  # fmt: skip
    seen = reco.merge(train, how="left", indicator=True)["_merge"].to_numpy() == "both"
    reco = reco[~seen].reset_index(drop=True)
    reco["rank"] = reco.groupby("user_id").cumcount() + 1
    full = reco.groupby("user_id")["item_id"].transform("size") == k  # RecBole's matrix: full lists
    matrix = reco[full].sort_values(["user_id", "rank"])["item_id"].to_numpy().reshape(-1, k)
    rt = {"user_id": Columns.User, "item_id": Columns.Item, "rank": Columns.Rank}
    cols = {"col_user": "user_id", "col_item": "item_id"}
    counts = train["item_id"].value_counts().to_dict()
    contenders: dict[str, Callable[[], dict[str, float]]] = {
        "rectools": lambda: {
            "novelty@10": MeanInvUserFreq(k=k).calc(reco.rename(columns=rt), train.rename(columns=rt)),
            "arp@10": AvgRecPopularity(k=k).calc(reco.rename(columns=rt), train.rename(columns=rt)),
            "catalog_coverage@10": CatalogCoverage(k=k, normalize=True).calc(reco.rename(columns=rt), range(n_items)),
        },
        "Microsoft Recommenders": lambda: {
            "ms_novelty@10": ms.novelty(train, reco, **cols),
            "entropy@10": ms.distributional_coverage(train, reco, **cols),
        },
        "RecBole (full lists)": lambda: {
            "gini@10": object.__new__(rb.GiniIndex).get_gini(matrix, n_items),
            "recbole_entropy@10": object.__new__(rb.ShannonEntropy).get_entropy(matrix),
            "arp@10": float(object.__new__(rb.AveragePopularity).get_pop(matrix, counts).mean()),
        },
    }
    fastest = np.inf
    rows: dict[str, tuple[pd.DataFrame, dict[str, float]]] = {}
    for name, call in contenders.items():
        peer, theirs = best(call, 1)
        fastest = min(fastest, peer)
        lists = reco if name != "RecBole (full lists)" else reco[full]
        rows[name] = lists, theirs
        ours_time, _ = best(partial(ours, train, lists, list(theirs), n_items, theirs), 1)
        print(
            f"{name:24} {peer:8.2f} s; rankmeter {ours_time:6.2f} s ({peer / ours_time:5.1f}x faster): {list(theirs)}"
        )
    columns = [reco["user_id"], reco["item_id"], train["user_id"], train["item_id"]]
    floor, _ = best(lambda: [pd.factorize(c) for c in columns], 3)
    print(
        f"floor: the four id columns (lists' users and items, training users and items) into codes by pd.factorize "
        f"{floor:.2f} s; the fastest peer / 10 = {fastest / 10:.2f} s (floor / that = {floor / (fastest / 10):.2f})"
    )
    least = {
        "rectools": lambda: least_rectools(reco, train, n_items, k),
        "RecBole (full lists)": lambda: least_recbole(reco[full], train, n_items),
    }
    for name, program in least.items():
        lists, theirs = rows[name]
        turns: dict[str, Callable[[], Any]] = {
            "peer": contenders[name],
            "least": program,
            "rankmeter": partial(ours, train, lists, list(theirs), n_items, {}),
        }
        times: dict[str, list[float]] = {who: [] for who in turns}
        for _ in range(5):  # in turns, the fastest of each
            for who, call in turns.items():
                start = time.perf_counter()
                values = call()
                times[who].append(time.perf_counter() - start)
                if who == "least":
                    assert all(abs(values[m] - v) < 1e-9 for m, v in theirs.items()), (name, theirs, values)
        peer, low, mine = (min(times[who]) for who in turns)
        print(
            f"least program for {name}'s values (codes, counts, per-list means; values checked) {low:.3f} s, "
            f"{name} {peer:.3f} s, rankmeter {mine:.3f} s (five turns, the fastest of each): least / ({name} / 10) "
            f"= {low / (peer / 10):.2f}; rankmeter / least = {mine / low:.2f}"
        )
    parts_of_ours(train, reco, list(rows["rectools"][1]), n_items)


def parts_of_ours(train: pd.DataFrame, reco: pd.DataFrame, names: list[str], n_items: int) -> None:
    """Where rankmeter's call for rectools' values spends its time: each part alone, in five turns, the fastest."""
    from rankmeter.core.semantics import Semantics
    from rankmeter.io.load import as_run
    from rankmeter.measures import FAMILIES
    from rankmeter.results import with_integer_ids

    measures = [parse(n) for n in names]
    items = Items(interactions=train, catalog=np.arange(n_items))
    run = as_run(reco, None)
    ctx = ListsContext.build(run, 10, items=items)
    result = rankmeter.beyond.evaluate_with_items(None, run, measures, items, Semantics(ties="trec"), None, None)
    parts: dict[str, Callable[[], Any]] = {
        "the training frame read into Items (ids to codes, the items' text)": lambda: Items(
            interactions=train, catalog=np.arange(n_items)
        ),
        "the same and each item's distinct training users (distinct pairs)": lambda: Items(
            interactions=train, catalog=np.arange(n_items)
        ).users_of([0]),
        "the run read (ids to codes, ranks checked)": lambda: as_run(reco, None),
        "the users' top-k lists (users x k, tie flags)": lambda: ListsContext.build(run, 10, items=items),
        "the three kernels": lambda: [FAMILIES[m.family].kernel(ctx, m) for m in measures],
        "the users' ids read back as integers": lambda: with_integer_ids(result),
        "the whole call": partial(ours, train, reco, names, n_items, {}),
    }
    times: dict[str, list[float]] = {part: [] for part in parts}
    for _ in range(5):
        for part, call in parts.items():
            start = time.perf_counter()
            call()
            times[part].append(time.perf_counter() - start)
    print("where rankmeter's call for rectools' values spends its time (each part alone, five turns, the fastest):")
    for part, taken in times.items():
        print(f"  {part:70} {min(taken):.3f} s")


def ours(train: pd.DataFrame, lists: pd.DataFrame, names: list[str], n_items: int, theirs: dict[str, float]) -> Any:
    """rankmeter's call for the peers' measures: ``Items`` read in the call, as the peers read the training pairs."""
    items = Items(interactions=train, catalog=np.arange(n_items))
    res = rankmeter.evaluate(None, lists, names, items=items)
    assert all(abs(res[m] - v) < 1e-9 for m, v in theirs.items()), (theirs, res.aggregate)
    return res


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=138_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--peers", action="store_true", help="only the peers' functions against rankmeter's")
    parser.add_argument("--peer-users", type=int, default=20_000)
    args = parser.parse_args()
    if args.peers:
        peers_part(args.peer_users)
        return
    ild_part(args.users, args.repeats)
    table_part(args.users, args.repeats)


if __name__ == "__main__":
    main()
