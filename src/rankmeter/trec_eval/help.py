"""The ``-h`` text: the flags, the input formats and the description of each requested measure."""

from __future__ import annotations

from rankmeter.trec_eval.measures import MEASURES

GENERAL = """\
rankmeter trec_eval [-h] [-v] [-q] [-m measure[.params]] [-c] [-n] [-l <num>] [-J]
   [-N <num>] [-M <num>] [-R rel_format] [-T results_format] [-Z zscore_file]
   rel_info_file results_file

A drop-in for trec_eval 10: the same flags and the same output, computed by
rankmeter. results_file may be '-' for standard input.

 -h, --help            this text; with -m, the description of those measures
 -v, --version         the version, on standard error
 -q, --query_eval_wanted
                       print each topic's values before the summary ('all')
 -m, --measure NAME[.PARAMS]
                       add a measure or a nickname (repeatable): official (the
                       default), all_trec, set, all_prefs, prefs, qrels_jg.
                       PARAMS follow the first '.', comma separated: -m P.5,10
                       -m ndcg.1=3,2=9 -m Rprec_mult.0.5,2 -m rbp.p=0.95
 -c, --complete_rel_info_wanted
                       average over every topic of the qrels; a topic without
                       results scores 0. Without -c such topics are ignored,
                       with a warning on standard error
 -l, --level_for_rel N lowest grade that counts as relevant (default 1)
 -n, --nosummary       no summary lines
 -J, --Judged_docs_only
                       drop unjudged documents (not in the qrels, or with a
                       negative grade) from every ranking first
 -N, --Number_docs_in_coll N
                       documents in the collection (utility's 4th weight)
 -M, --Max_retrieved_per_topic N
                       evaluate only the top N documents of each topic
 -R, --Rel_info_format F
                       qrels (default), prefs, qrels_prefs or qrels_jg
 -T, --Results_format F
                       trec_results (the only one)
 -Z, --Zscore FILE     print z-scores against the per-topic means and standard
                       deviations in FILE (lines: topic measure mean stddev)
 -D, -o                accepted and ignored

Formats: qrels lines are 'topic iteration docno grade' (grades read as C atol
reads them: 1.5 is 1); run lines are 'topic Q0 docno rank score tag', ranked by
score descending, then docno descending (the rank column is ignored); lines
starting with '#' are comments. prefs lines are 'topic judgment_group
judgment_set docno preference'. Ties, -M and -J follow trec_eval exactly.
"""


def help_text(measure_names: list[str]) -> str:
    """The help text, with the description of each measure in ``measure_names`` (trec_eval's order).

    >>> help_text(["ndcg_cut"]).splitlines()[-1]
    '    rankmeter: ndcg@k'
    """
    parts = [GENERAL, "-----------------------\n", "Individual measure documentation for requested measures\n"]
    wanted = set(measure_names)
    described = [m for m in MEASURES if m.name in wanted]
    for m in described:
        parts.append(f"{m.name}\n    {m.help}\n    rankmeter: {m.rankmeter}\n")
    if not described:
        parts.append("-- No measures indicated.\n   Request measure documentation using <-m measure> on command line\n")
    return "".join(parts)
