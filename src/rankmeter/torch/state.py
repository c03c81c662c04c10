"""The state handling of a metric when torchmetrics is not installed: list states, reset, and a sync across processes.

:class:`PlainMetric` offers the part of ``torchmetrics.Metric`` that the
rankmeter metrics use -- ``add_state(name, default=[], dist_reduce_fx="cat")``,
``reset``, ``update`` / ``compute`` and calling the metric -- so that the same
class body works with torchmetrics and without it. ``compute`` gathers every
process's states when ``torch.distributed`` is initialised with more than
one process, as torchmetrics does.
"""

from __future__ import annotations

from typing import Any

import torch


def world() -> tuple[int, int]:
    """``(rank, world_size)`` of this process; ``(0, 1)`` outside ``torch.distributed``."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class PlainMetric:
    """A minimal stand-in for ``torchmetrics.Metric`` holding list states ("cat" reduction only).

    >>> class Count(PlainMetric):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.add_state("seen", default=[], dist_reduce_fx="cat")
    ...     def update(self, x):
    ...         self.seen.append(x)
    ...     def compute(self):
    ...         return int(torch.cat(self.gathered("seen")).numel())
    >>> m = Count(); m.update(torch.ones(3)); m(torch.ones(2))
    2
    >>> m.compute()
    5
    """

    def __init__(self, **kwargs: Any) -> None:
        self._defaults: dict[str, list[Any]] = {}
        self._local_only = False

    def add_state(
        self, name: str, default: list[Any], dist_reduce_fx: str | None = None, persistent: bool = False
    ) -> None:
        """Declare a list state (concatenated across processes)."""
        self._defaults[name] = list(default)
        setattr(self, name, list(default))

    def reset(self) -> None:
        """Forget every update."""
        for name, default in self._defaults.items():
            setattr(self, name, list(default))

    def gathered(self, name: str) -> list[torch.Tensor]:
        """This process's list state, extended by every other process's under ``torch.distributed``."""
        local = list(getattr(self, name))
        _, size = world()
        if size == 1 or self._local_only:
            return local
        parts: list[Any] = [None] * size
        torch.distributed.all_gather_object(parts, [t.detach().cpu() for t in local])
        return [t for part in parts for t in part]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Update with a batch and return the batch's own value (torchmetrics's ``forward``)."""
        saved = {name: getattr(self, name) for name in self._defaults}
        self.reset()
        self.update(*args, **kwargs)
        self._local_only = True
        try:
            value = self.compute()
        finally:
            self._local_only = False
            for name, state in saved.items():
                setattr(self, name, state + getattr(self, name))
        return value

    def update(self, *args: Any, **kwargs: Any) -> None:  # pragma: no cover - subclasses define it
        raise NotImplementedError

    def compute(self) -> Any:  # pragma: no cover - subclasses define it
        raise NotImplementedError
