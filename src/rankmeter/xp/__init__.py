"""Torch, JAX and CuPy arrays evaluated on their own device, through the array API standard.

:func:`rankmeter.evaluate_arrays`, :func:`rankmeter.evaluate_lists` and
:func:`rankmeter.evaluate_vectors` hand such arrays here: the dense kernels
(:mod:`rankmeter.xp.kernels`) are written once against the arrays' namespace
(``array_api_compat.array_namespace``), so sorting, tie groups, gains,
discounts and cutoffs run where the arrays are; only the per-query values
come back to NumPy. Needs the ``array-api-compat`` package (the ``torch`` and
``keras`` extras install it) for that; without it CPU arrays are read through
NumPy and arrays on another device raise an error naming the package. NumPy
input never comes here.
"""
