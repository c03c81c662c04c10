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
