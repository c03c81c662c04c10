"""Long, coverage-guided fuzzing campaign over rankmeter's readers, grammar and CLI (atheris / libFuzzer).

Usage (one target per process; see docs/errors.md for the totals of the last campaign)::

    pip install -e ".[test,fuzz]"
    nice -n 19 python fuzz/campaign.py TARGET -runs=200000 -max_len=4096 fuzz/corpus/TARGET
    python fuzz/campaign.py --list

TARGET is one of ``tests.fuzz.targets.TARGETS``. Any argument after TARGET is passed to libFuzzer
(``-runs``, ``-max_total_time``, ``-max_len``, a corpus folder, ...). An input that makes the target fail
is written by libFuzzer as ``crash-<sha1>``: copy it to ``tests/fuzz/regressions/TARGET/`` so that
``tests/fuzz/test_fuzz.py`` replays it on every test run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


INSTRUMENTED = [
    "rankmeter",
    "rankmeter.errors",
    "rankmeter.io.trec",
    "rankmeter.io.run_blocks",
    "rankmeter.io.validate",
    "rankmeter.io.dicts",
    "rankmeter.io.frames",
    "rankmeter.io.load",
    "rankmeter.io.intents",
    "rankmeter.io.table_files",
    "rankmeter.io.output",
    "rankmeter.ids.convert",
    "rankmeter.measures",
    "rankmeter.measures.grammar",
    "rankmeter.measures.params",
    "rankmeter.core.join",
    "rankmeter.core.semantics",
    "rankmeter.pipeline",
    "rankmeter.by_ids",
    "rankmeter.by_arrays",
    "rankmeter.streaming",
    "rankmeter.results",
    "rankmeter.trec_eval.readers",
    "rankmeter.trec_eval.measures",
    "rankmeter.trec_eval.options",
    "rankmeter.trec_eval.prefs",
    "rankmeter.trec_eval.judgment_groups",
    "rankmeter.trec_eval.app",
    "rankmeter.cli.main",
    "rankmeter.cli.evaluate_command",
    "rankmeter.cli.options",
    "rankmeter.cli.runs",
    "rankmeter.cli.text_table",
    "rankmeter.cli.trec_eval",
]


def main() -> None:
    import atheris

    if len(sys.argv) < 2 or sys.argv[1] == "--list":
        from tests.fuzz.targets import TARGETS

        print("\n".join(TARGETS))
        return
    name = sys.argv.pop(1)
    import importlib

    # rankmeter imports most modules lazily: import every one a target reaches while instrumenting
    with atheris.instrument_imports(include=["rankmeter"]):
        for module in INSTRUMENTED:
            importlib.import_module(module)
    from tests.fuzz.targets import TARGETS

    target = TARGETS[name]
    atheris.Setup(sys.argv, target)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
