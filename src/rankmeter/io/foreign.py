"""Arrays of other libraries (PyTorch, JAX, CuPy): which library an array comes from, and its host copy.

The dense and vector entry points evaluate such arrays on their own device
through the array API (:mod:`rankmeter.xp`); these helpers tell them apart
from NumPy input without importing those libraries, and bring an array to
host memory where a path needs NumPy (a view where the library allows it:
CPU tensors, JAX arrays on the CPU). Gradients are never tracked through an
evaluation.
"""

from __future__ import annotations

from typing import Any

LIBRARIES = ("torch", "jax", "cupy")
"""Array libraries evaluated on their own device (through ``array-api-compat``)."""


def array_library(x: Any) -> str | None:
    """``"torch"``, ``"jax"`` or ``"cupy"`` when ``x`` is an array of that library, else None.

    >>> import numpy as np
    >>> array_library(np.ones(2)), array_library([1.0])
    (None, None)
    """
    library = type(x).__module__.partition(".")[0]
    if library == "jaxlib":
        library = "jax"
    if library in LIBRARIES and hasattr(x, "shape") and hasattr(x, "dtype"):
        return library
    return None


def host_array(x: Any) -> Any:
    """``x`` as a NumPy array when it is a torch tensor, a JAX array or a CuPy array; anything else unchanged.

    >>> import numpy as np
    >>> host_array([1, 2]), host_array(np.ones(2)).tolist()
    ([1, 2], [1.0, 1.0])
    """
    library = array_library(x)
    if library == "torch":
        return x.detach().cpu().numpy()
    if library == "cupy":
        return x.get()
    if library == "jax":
        import numpy as np

        return np.asarray(x)
    return x


def host_arrays(*xs: Any) -> tuple[Any, ...]:
    """:func:`host_array` of each argument."""
    return tuple(host_array(x) for x in xs)
