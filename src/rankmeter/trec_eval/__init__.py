"""trec_eval compatibility: run trec_eval's command line on rankmeter and print its output byte for byte.

Modules:

- :mod:`.app`              the program: :func:`run_trec_eval`
- :mod:`.options`          the command line, parsed like trec_eval's ``getopt_long``
- :mod:`.measures`         the measure table: trec_eval names <-> rankmeter names, ``-m`` parameters
- :mod:`.readers`          qrels (``atol`` grades), runs (runid of the last line), ``-Z`` tables
- :mod:`.engine`           per-topic values of the standard measures via rankmeter's evaluation path
- :mod:`.prefs`            ``-R prefs`` / ``-R qrels_prefs`` and the ``prefs_*`` measures
- :mod:`.judgment_groups`  ``-R qrels_jg`` and the ``*_avgjg`` measures
- :mod:`.report`           trec_eval's output format, summaries and the ``-Z`` transform
- :mod:`.help`             the ``-h`` text
- :mod:`.cnum`             C ``atol`` / ``atof``

>>> from rankmeter.trec_eval import resolve
>>> [r.spec.name for r in resolve(["P.5", "map"])]
['map', 'P']
"""

from rankmeter.trec_eval.app import TREC_EVAL_VERSION, run_trec_eval
from rankmeter.trec_eval.measures import MEASURES, NICKNAMES, resolve
from rankmeter.trec_eval.options import parse_options

__all__ = ["MEASURES", "NICKNAMES", "TREC_EVAL_VERSION", "parse_options", "resolve", "run_trec_eval"]
