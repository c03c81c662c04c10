"""Each user's top-k list as the kernels read it: the same lists as sorting each user's rows in Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rankmeter.io.tables import Run
from rankmeter.measures.kernels.beyond_lists import ListsContext

ROWS = st.lists(
    st.tuples(
        st.sampled_from(["u1", "u2", "u10", "u9", "x"]), st.integers(0, 7), st.sampled_from([0.5, 1.0, 2.0, 3.0])
    ),
    min_size=1,
    max_size=30,
    unique_by=lambda r: (r[0], r[1]),
)


@settings(max_examples=300, deadline=None)
@given(ROWS, st.integers(1, 5), st.booleans())
def test_lists_are_each_users_rows_by_score_then_item_id_descending(
    rows: list[tuple[str, int, float]], k: int, grouped: bool
) -> None:
    rows = sorted(rows, key=lambda r: (r[0], -r[2])) if grouped else rows  # grouped: often read in place
    run = Run(np.array([r[0] for r in rows]), np.array([f"i{r[1]}" for r in rows]), np.array([r[2] for r in rows]))
    ctx = ListsContext.build(run, k, ties="trec")
    expected: dict[str, list[tuple[float, str]]] = {}
    for user, item, score in rows:
        expected.setdefault(user, []).append((score, f"i{item}"))
    assert ctx.users.tolist() == sorted(expected)
    for row, user in enumerate(ctx.users.tolist()):  # score descending, then item id descending (trec)
        ordered = sorted(sorted(expected[user], key=lambda p: p[1], reverse=True), key=lambda p: -p[0])
        top = ordered[:k]
        assert [str(ctx.universe[c]) for c in ctx.codes[row] if c >= 0] == [item for _, item in top]
        assert (ctx.codes[row, len(top) :] == -1).all()
        tied = [i + 1 < len(ordered) and ordered[i][0] == ordered[i + 1][0] for i in range(len(top))]
        assert ctx.tied_inside[row, : len(top)].tolist() == tied


def test_list_set_measures_of_one_call_are_each_measures_own_value() -> None:
    import rankmeter

    rng = np.random.default_rng(3)
    lists = {f"u{u}": [f"i{i}" for i in rng.choice(30, int(rng.integers(1, 12)), replace=False)] for u in range(40)}
    items = rankmeter.Items(interactions={"x": ["i1", "i2"], "y": ["i2"]}, catalog=[f"i{i}" for i in range(30)])
    names = ["catalog_coverage@3", "gini@10", "entropy@3", "recbole_entropy@10", "catalog_coverage@10", "gini@3"]
    together = rankmeter.evaluate(None, lists, names, items=items)
    for name in names:
        assert together[name] == rankmeter.evaluate(None, lists, name, items=items)[name], name
    head = {u: items_[:3] for u, items_ in lists.items()}
    assert together["gini@3"] == rankmeter.evaluate(None, head, "gini@10", items=items)["gini@10"]
