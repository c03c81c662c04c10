"""trec_eval's command line, parsed the way its ``getopt_long`` call does.

Short options may be clustered and take their argument attached or as the
next word (``-q -c``, ``-qc``, ``-mP.5,10``, ``-m P.5,10``, ``-M1000``,
``-l2``); long options take ``--name=value`` or ``--name value`` and may be
abbreviated to any unique prefix; options and the two file names may come in
any order (GNU argument permutation); ``--`` ends the options and a lone
``-`` is a file name (standard input).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rankmeter.errors import RankmeterError
from rankmeter.trec_eval.cnum import atol

#: Short option letters; a trailing ":" means the option takes an argument.
SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"

#: Long option names and the short option each one stands for.
LONG_OPTIONS = {
    "help": "h",
    "version": "v",
    "query_eval_wanted": "q",
    "measure": "m",
    "complete_rel_info_wanted": "c",
    "level_for_rel": "l",
    "nosummary": "n",
    "Debug_level": "D",
    "Judged_docs_only": "J",
    "Number_docs_in_coll": "N",
    "Max_retrieved_per_topic": "M",
    "Rel_info_format": "R",
    "Results_format": "T",
    "Output_old_results_format": "o",
    "Zscore": "Z",
}

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
"""


class UsageError(RankmeterError):
    """The command line cannot be parsed (trec_eval prints its usage and exits with status 1)."""


@dataclass
class Options:
    """Everything trec_eval's command line sets.

    Attributes
    ----------
    measures : list of str
        The ``-m`` arguments in order (``name`` or ``name.params``).
    query : bool
        ``-q``: print per-topic values before the summary.
    complete : bool
        ``-c``: average over every topic of the qrels (a topic without results scores 0).
    level : int
        ``-l``: minimum grade of a relevant document (default 1).
    summary : bool
        ``-n`` turns the summary (``all`` rows) off.
    judged_only : bool
        ``-J``: drop unjudged documents before evaluating.
    num_docs : int
        ``-N``: documents in the collection (utility's d coefficient).
    max_docs : int or None
        ``-M``: evaluate only the top N documents of each topic.
    rel_format, results_format : str
        ``-R`` (``qrels``, ``prefs``, ``qrels_prefs``, ``qrels_jg``) and ``-T`` (``trec_results``).
    zscores : str or None
        ``-Z`` file of per-topic means and standard deviations.
    files : list of str
        The positional arguments (qrels file, run file).
    """

    measures: list[str] = field(default_factory=list)
    query: bool = False
    complete: bool = False
    level: int = 1
    summary: bool = True
    debug: str | None = None
    judged_only: bool = False
    num_docs: int = 0
    max_docs: int | None = None
    rel_format: str = "qrels"
    results_format: str = "trec_results"
    zscores: str | None = None
    help: bool = False
    version: bool = False
    files: list[str] = field(default_factory=list)


def _takes_argument(letter: str) -> bool:
    i = SHORT_OPTIONS.find(letter)
    return i >= 0 and i + 1 < len(SHORT_OPTIONS) and SHORT_OPTIONS[i + 1] == ":"


def _apply(opts: Options, letter: str, value: str | None) -> None:
    if letter == "h":
        opts.help = True
    elif letter == "v":
        opts.version = True
    elif letter == "q":
        opts.query = True
    elif letter == "m":
        opts.measures.append(value or "")
    elif letter == "c":
        opts.complete = True
    elif letter == "l":
        opts.level = atol(value or "")
    elif letter == "n":
        opts.summary = False
    elif letter == "D":
        opts.debug = value
    elif letter == "J":
        opts.judged_only = True
    elif letter == "N":
        opts.num_docs = atol(value or "")
    elif letter == "M":
        opts.max_docs = atol(value or "")
    elif letter == "R":
        opts.rel_format = value or ""
    elif letter == "T":
        opts.results_format = value or ""
    elif letter == "Z":
        opts.zscores = value
    # "o" (old output format) is obsolete and ignored, as in trec_eval 10


def _long_option(name: str) -> str:
    if name in LONG_OPTIONS:
        return LONG_OPTIONS[name]
    matches = [k for k in LONG_OPTIONS if k.startswith(name)]
    if len(matches) == 1:
        return LONG_OPTIONS[matches[0]]
    what = "ambiguous" if matches else "unrecognized"
    raise UsageError(f"{what} option '--{name}'")


def parse_options(argv: Sequence[str]) -> Options:
    """Parse trec_eval's arguments (without the program name).

    Raises
    ------
    UsageError
        Unknown option, or an option missing its argument.

    Examples
    --------
    >>> o = parse_options(["-q", "-mP.5,10", "-m", "map", "-M100", "-l2", "qrels", "-"])
    >>> o.query, o.measures, o.max_docs, o.level, o.files
    (True, ['P.5,10', 'map'], 100, 2, ['qrels', '-'])
    >>> parse_options(["qrels", "run", "-qc", "--measure=ndcg"]).measures
    ['ndcg']
    """
    opts = Options()
    args = list(argv)
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            opts.files.extend(args[i:])
            break
        if word.startswith("--"):
            name, eq, value = word[2:].partition("=")
            letter = _long_option(name)
            if _takes_argument(letter):
                if not eq:
                    if i >= len(args):
                        raise UsageError(f"option '--{name}' requires an argument")
                    value = args[i]
                    i += 1
                _apply(opts, letter, value)
            else:
                if eq:
                    raise UsageError(f"option '--{name}' doesn't allow an argument")
                _apply(opts, letter, None)
            continue
        if word.startswith("-") and word != "-":
            j = 1
            while j < len(word):
                letter = word[j]
                if letter not in SHORT_OPTIONS or letter == ":":
                    raise UsageError(f"invalid option -- '{letter}'")
                if _takes_argument(letter):
                    value = word[j + 1 :]
                    if not value:
                        if i >= len(args):
                            raise UsageError(f"option requires an argument -- '{letter}'")
                        value = args[i]
                        i += 1
                    _apply(opts, letter, value)
                    break
                _apply(opts, letter, None)
                j += 1
            continue
        opts.files.append(word)
    return opts
