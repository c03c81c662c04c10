"""A drop-in for NIST's ``ndeval`` (TREC Web track diversity evaluation, version 4.5).

``rankmeter ndeval [options] QRELS RUN`` reads the same files, takes the same
options and prints the same CSV lines (per topic, then ``amean``) as
``ndeval``; the values come from rankmeter's diversity kernels
(:mod:`rankmeter.measures.kernels.diversity`). docs/diversity.md lists the
few deliberate differences (clear errors where ndeval reads on silently).
"""
