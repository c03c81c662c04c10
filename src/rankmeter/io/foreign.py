"""Arrays of other libraries (PyTorch, JAX, CuPy) as NumPy arrays on the host, without importing those libraries.

The entry points accept them wherever they take array-likes; the values are
copied to host memory once (a view where the library allows it: CPU
tensors, JAX arrays on the CPU) and the evaluation runs on NumPy -- there is
no on-device computation. Gradients are never tracked through an evaluation.
"""

from __future__ import annotations

from typing import Any


def host_array(x: Any) -> Any:
    """``x`` as a NumPy array when it is a torch tensor, a JAX array or a CuPy array; anything else unchanged.

    >>> import numpy as np
    >>> host_array([1, 2]), host_array(np.ones(2)).tolist()
    ([1, 2], [1.0, 1.0])
    """
    library = type(x).__module__.partition(".")[0]
    if library == "torch" and hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if library == "cupy" and hasattr(x, "get"):
        return x.get()
    if library in ("jax", "jaxlib"):
        import numpy as np

        return np.asarray(x)
    return x


def host_arrays(*xs: Any) -> tuple[Any, ...]:
    """:func:`host_array` of each argument."""
    return tuple(host_array(x) for x in xs)
