"""docs/errors.md's catalogue is what the code produces, and every case is a RankmeterError (CLI: status 1 or 2, one line)."""

from __future__ import annotations

import pytest

from tests.fuzz import catalogue


@pytest.mark.parametrize("case", catalogue.cases(), ids=lambda c: c[1])
def test_each_bad_input_gets_one_located_error(case: tuple[str, str, object]) -> None:
    area, _, call = case
    kind, message = catalogue.outcome(call)  # type: ignore[arg-type]
    assert message and "Traceback" not in message
    assert "\n" not in message
    if area == "cli":
        assert kind in ("exit 1", "exit 2")
    else:
        assert kind.endswith("Error")


def test_the_page_is_up_to_date() -> None:
    page = catalogue.PAGE.read_text()
    start, end = page.index(catalogue.BEGIN), page.index(catalogue.END) + len(catalogue.END)
    assert page[start:end] == catalogue.render(), "run: python -m tests.fuzz.catalogue --write"


def test_at_least_sixty_cases_across_every_area() -> None:
    areas = {area for area, _, _ in catalogue.cases()}
    assert len(catalogue.cases()) >= 60
    assert {"files", "frames", "arrays", "vectors", "measures", "cli"} <= areas
