"""Beyond-accuracy measures against the recommender libraries' own functions (rectools, Microsoft
Recommenders, RecBole), on random training interactions and ranked lists without ties.

Lists hold distinct items, some shorter than the cutoff; some recommended items are absent from
training (cold items), and some users recommended nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

setattr(np, "float", float)  # noqa: B010  (RecBole 1.2.1 spells NumPy's removed aliases of the builtins)
setattr(np, "bool", bool)  # noqa: B010

from recbole.evaluator import metrics as recbole_metrics  # noqa: E402
from recommenders.evaluation import python_evaluation as ms  # noqa: E402
from rectools import Columns  # noqa: E402
from rectools.metrics import (  # noqa: E402
    AvgRecPopularity,
    CatalogCoverage,
    IntraListDiversity,
    MeanInvUserFreq,
    PairwiseHammingDistanceCalculator,
    Serendipity,
)

import rankmeter  # noqa: E402

SEEDS = [0, 1, 2]
K = 5
COLS = {"col_user": "user_id", "col_item": "item_id"}


def _case(seed: int) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Training interactions (items 0..29 of a 40-item catalogue) and top lists (up to 8 items per user)."""
    rng = np.random.default_rng(seed)
    train = pd.DataFrame({"user_id": rng.integers(0, 25, 200), "item_id": rng.integers(0, 30, 200)}).drop_duplicates()
    rows = []
    for user in range(25):
        n = int(rng.integers(0, 9))
        for rank, item in enumerate(rng.permutation(40)[:n], start=1):
            rows.append((user, int(item), rank))
    reco = pd.DataFrame(rows, columns=["user_id", "item_id", "rank"])
    seen = reco.merge(train.drop_duplicates(), how="left", indicator=True)["_merge"].to_numpy() == "both"
    reco = reco[~seen].reset_index(drop=True)  # MS Recommenders refuses training pairs in the lists
    reco["rank"] = reco.groupby("user_id").cumcount() + 1
    features = rng.normal(size=(40, 6))
    return train.reset_index(drop=True), reco, features


def _ours(train: pd.DataFrame, reco: pd.DataFrame, measures: list[str], **items: object) -> rankmeter.EvaluationResult:
    lists = {str(u): [str(i) for i in g.sort_values("rank")["item_id"]] for u, g in reco.groupby("user_id")}
    catalog = [str(i) for i in range(40)]
    pairs = {str(u): [str(i) for i in g["item_id"]] for u, g in train.groupby("user_id")}
    return rankmeter.evaluate(
        None, lists, measures, items=rankmeter.Items(interactions=pairs, catalog=catalog, **items)
    )


def _rt(df: pd.DataFrame) -> pd.DataFrame:
    return df.rename(columns={"user_id": Columns.User, "item_id": Columns.Item, "rank": Columns.Rank})


@pytest.mark.parametrize("seed", SEEDS)
def test_rectools(seed: int) -> None:
    train, reco, _ = _case(seed)
    res = _ours(train, reco, [f"novelty@{K}", f"arp@{K}", f"catalog_coverage@{K}"])
    miuf = MeanInvUserFreq(k=K).calc_per_user(_rt(reco), _rt(train))
    arp = AvgRecPopularity(k=K).calc_per_user(_rt(reco), _rt(train))
    ours_miuf, ours_arp = res.by_query(f"novelty@{K}"), res.by_query(f"arp@{K}")
    assert len(miuf) == len(ours_miuf)
    for user, value in miuf.items():
        assert ours_miuf[str(user)] == pytest.approx(value, abs=1e-12)
        assert ours_arp[str(user)] == pytest.approx(arp[user], abs=1e-12)
    coverage = CatalogCoverage(k=K, normalize=True).calc(_rt(reco), list(range(40)))
    assert res[f"catalog_coverage@{K}"] == pytest.approx(coverage, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_ms_recommenders(seed: int) -> None:
    train, reco, features = _case(seed)
    top = reco[reco["rank"] <= K]
    res = _ours(train, reco, [f"entropy@{K}", f"ms_novelty@{K}", f"ild@{K}"], features=features)
    assert res[f"entropy@{K}"] == pytest.approx(ms.distributional_coverage(train, top, **COLS), abs=1e-12)
    assert res[f"ms_novelty@{K}"] == pytest.approx(ms.novelty(train, top, **COLS), abs=1e-12)
    # MS Recommenders' diversity leaves users with one item out; cosine similarity of item feature vectors
    two = top[top.groupby("user_id")["item_id"].transform("size") >= 2]
    item_features = pd.DataFrame({"item_id": range(40), "features": list(features)})
    div = ms.user_diversity(train, two, item_feature_df=item_features, item_sim_measure="item_feature_vector", **COLS)
    ours = res.by_query(f"ild@{K}")
    for user, value in zip(div["user_id"], div["user_diversity"], strict=True):
        assert ours[str(user)] == pytest.approx(value, abs=1e-12)
    # MS Recommenders' catalog_coverage divides by the training items: rankmeter's default catalogue
    pairs = {str(u): [str(i) for i in g["item_id"]] for u, g in train.groupby("user_id")}
    lists = {str(u): [str(i) for i in g.sort_values("rank")["item_id"]] for u, g in reco.groupby("user_id")}
    cov = rankmeter.evaluate(None, lists, f"catalog_coverage@{K}", items=rankmeter.Items(interactions=pairs))
    assert cov[f"catalog_coverage@{K}"] == pytest.approx(ms.catalog_coverage(train, top, **COLS), abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_recbole(seed: int) -> None:
    """RecBole's metric functions on full lists (its item matrix has k items per user)."""
    train, reco, _ = _case(seed)
    full = reco[reco.groupby("user_id")["item_id"].transform("size") >= K]
    full = full[full["rank"] <= K]
    matrix = np.stack([g.sort_values("rank")["item_id"].to_numpy() for _, g in full.groupby("user_id")])
    res = _ours(train, full, [f"gini@{K}", f"recbole_entropy@{K}", f"arp@{K}", f"aplt(tail_max=2)@{K}"])
    gini = object.__new__(recbole_metrics.GiniIndex).get_gini(matrix, 40)
    entropy = object.__new__(recbole_metrics.ShannonEntropy).get_entropy(matrix)
    assert res[f"gini@{K}"] == pytest.approx(gini, abs=1e-12)
    assert res[f"recbole_entropy@{K}"] == pytest.approx(entropy, abs=1e-12)
    counts = train["item_id"].value_counts().to_dict()
    pop = object.__new__(recbole_metrics.AveragePopularity).get_pop(matrix, counts)
    assert res[f"arp@{K}"] == pytest.approx(float((pop.sum(axis=1) / K).mean()), abs=1e-12)
    tail = object.__new__(recbole_metrics.TailPercentage)
    tail.tail = 2
    # RecBole's tail holds only training items; items absent from training are tail items here
    seen = np.isin(matrix, list(counts))
    share = (tail.get_tail(matrix, counts) + ~seen).sum(axis=1) / K
    assert res[f"aplt(tail_max=2)@{K}"] == pytest.approx(float(share.mean()), abs=1e-12)


def _truth(seed: int, reco: pd.DataFrame) -> pd.DataFrame:
    """Held-out interactions: about half of the recommended pairs and some others."""
    rng = np.random.default_rng(seed + 100)
    hit = reco[rng.random(len(reco)) < 0.5][["user_id", "item_id"]]
    other = pd.DataFrame({"user_id": rng.integers(0, 25, 30), "item_id": rng.integers(0, 40, 30)})
    return pd.concat([hit, other]).drop_duplicates().reset_index(drop=True)


def _with_truth(train, reco, truth, measures, **items):  # type: ignore[no-untyped-def]
    lists = {str(u): [str(i) for i in g.sort_values("rank")["item_id"]] for u, g in reco.groupby("user_id")}
    qrels = {str(u): {str(i): 1 for i in g["item_id"]} for u, g in truth.groupby("user_id")}
    pairs = {str(u): [str(i) for i in g["item_id"]] for u, g in train.groupby("user_id")}
    catalog = [str(i) for i in range(40)]
    return rankmeter.evaluate(
        qrels, lists, measures, items=rankmeter.Items(interactions=pairs, catalog=catalog, **items)
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_rectools_serendipity(seed: int) -> None:
    train, reco, _ = _case(seed)
    truth = _truth(seed, reco)
    theirs = Serendipity(k=K).calc_per_user(_rt(reco), _rt(truth), _rt(train), list(range(40)))
    ours = _with_truth(train, reco, truth, [f"rectools_serendipity@{K}"]).by_query(f"rectools_serendipity@{K}")
    assert len(theirs) == len(ours) and len(theirs) > 10
    for user, value in theirs.items():
        assert ours[str(user)] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_ms_serendipity(seed: int) -> None:
    """Relevance: 1 for a held-out pair (MS Recommenders reads it from the lists' relevance column)."""
    train, reco, features = _case(seed)
    truth = _truth(seed, reco)
    top = reco[reco["rank"] <= K].copy()
    key = set(zip(truth["user_id"], truth["item_id"], strict=True))
    top["relevance"] = [float((u, i) in key) for u, i in zip(top["user_id"], top["item_id"], strict=True)]
    item_features = pd.DataFrame({"item_id": range(40), "features": list(features)})
    theirs = ms.user_serendipity(train, top[["user_id", "item_id", "relevance"]], item_feature_df=item_features,
                                 item_sim_measure="item_feature_vector", col_relevance="relevance", **COLS)  # fmt: skip
    res = _with_truth(train, reco, truth, [f"ms_serendipity@{K}"], features=features)
    ours = res.by_query(f"ms_serendipity@{K}")
    assert len(theirs) == len(ours) and len(theirs) > 10
    for user, value in zip(theirs["user_id"], theirs["user_serendipity"], strict=True):
        assert ours[str(user)] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_rectools_intra_list_diversity(seed: int) -> None:
    """rectools' IntraListDiversity with its Hamming distance calculator: ild(metric=hamming)@k."""
    train, reco, _ = _case(seed)
    features = np.random.default_rng(seed + 7).integers(0, 3, (40, 5)).astype(float)
    calculator = PairwiseHammingDistanceCalculator(pd.DataFrame(features, index=range(40)))
    theirs = IntraListDiversity(k=K, distance_calculator=calculator).calc_per_user(_rt(reco))
    ours = _ours(train, reco, [f"ild(metric=hamming)@{K}"], features=features).by_query(f"ild(metric=hamming)@{K}")
    assert len(theirs) == len(ours)
    for user, value in theirs.items():
        assert ours[str(user)] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("seed", SEEDS)
def test_recbole_item_coverage(seed: int) -> None:
    """RecBole's ItemCoverage.get_coverage with the catalogue's size as its number of items."""
    train, reco, _ = _case(seed)
    full = reco[reco.groupby("user_id")["item_id"].transform("size") >= K]
    full = full[full["rank"] <= K]
    matrix = np.stack([g.sort_values("rank")["item_id"].to_numpy() for _, g in full.groupby("user_id")])
    coverage = object.__new__(recbole_metrics.ItemCoverage).get_coverage(matrix, 40)
    assert _ours(train, full, [f"catalog_coverage@{K}"])[f"catalog_coverage@{K}"] == pytest.approx(coverage, abs=1e-12)
