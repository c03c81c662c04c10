"""Kernels of the measures that trec_eval computes and rankmeter's core families do not.

One module per group of measures:

- :mod:`.preference`   bpref, infAP (judgment-based measures that skip unjudged documents)
- :mod:`.interpolated` interpolated precision at recall levels, their average (11-point), Rprec_mult
- :mod:`.gain`         binG, G, ndcg_rel, Rndcg (trec_eval's experimental gain measures)
- :mod:`.sets`         set_P, set_recall, set_relative_P, set_map, set_F, utility, relative_P,
  num_nonrel_judged_ret, unj
- :mod:`.rbp`          rank-biased precision and its residual
- :mod:`.average`      yaap

Every kernel follows the contract of :mod:`rankmeter.measures.kernels`: it takes
``(Context, Measure)``, returns ``float64[n_queries, n_cutoffs]``, works on all
queries at once and returns NaN where the value is undefined. Relevance is
trec_eval's: a ranked document is *relevant* when it is judged with grade >=
``min_rel`` (grade > 0 by default), *judged non-relevant* when judged with a
grade >= 0 that is not relevant, *unjudged in the pool* when judged with a
negative grade, and *not in the pool* when absent from the qrels.
"""
