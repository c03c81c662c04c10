"""Keras picks its backend at first import: JAX unless KERAS_BACKEND says otherwise (rankmeter.keras doctests)."""

import os

os.environ.setdefault("KERAS_BACKEND", "jax")
