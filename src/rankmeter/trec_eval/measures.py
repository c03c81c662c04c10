"""The trec_eval measure table: names, parameters, printing, aggregation and the rankmeter name of each.

trec_eval prints measures in one fixed order (its ``measures.c`` table), not
in command-line order; :data:`MEASURES` lists them in that order. A ``-m``
argument is ``name`` or ``name.params``; ``name`` may also be a nickname
(:data:`NICKNAMES`: ``official``, ``all_trec``, ``set``, ``all_prefs``,
``prefs``, ``qrels_jg``). Parameters come in five styles:

``cut``        integer cutoffs, sorted, positive, no duplicates: ``P.5,10`` -> ``P_5``, ``P_10``
``cut_float``  float cutoffs, sorted, no duplicates: ``Rprec_mult.0.2,2`` -> ``Rprec_mult_0.20``
``floats``     a float list, printed as given: ``utility.2,-1,0,0`` -> ``utility_2,-1,0,0``
``pairs``      ``name=value`` pairs, printed as given: ``ndcg.1=3,2=9`` -> ``ndcg_1=3,2=9``
``none``       parameters are ignored

>>> [(c.name, c.key) for c in build_columns(resolve(["P.10,5"])[0], level=2)]
[('P_5', 'p(min_rel=2)@5'), ('P_10', 'p(min_rel=2)@10')]
>>> [r.spec.name for r in resolve(["official"])][:6]
['runid', 'num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map']
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rankmeter.errors import RankmeterError
from rankmeter.measures import Measure, measure
from rankmeter.measures.params import GainTable
from rankmeter.trec_eval.cnum import atof, atol


class TrecMeasureError(RankmeterError):
    """An unknown measure, or malformed measure parameters (trec_eval exits with status 1 or 2)."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class TrecMeasure:
    """One row of trec_eval's measure table.

    Attributes
    ----------
    name : str
        trec_eval's name.
    params : str
        Parameter style: ``none``, ``cut``, ``cut_float``, ``floats`` or ``pairs``.
    default : tuple
        Default parameters.
    count : bool
        Printed as an integer (``%ld``) rather than ``%6.4f``.
    aggregate : str
        ``mean``, ``sum``, ``gmean``, ``num_q`` or ``none`` (not summarised).
    per_query : bool
        Printed for each topic with ``-q``.
    formats : tuple of str
        The ``-R`` relevance formats it can be computed from.
    rankmeter : str
        The rankmeter measure it maps to (for the documentation).
    help : str
        What ``-h -m NAME`` prints.
    """

    name: str
    params: str = "none"
    default: tuple[Any, ...] = ()
    count: bool = False
    aggregate: str = "mean"
    per_query: bool = True
    formats: tuple[str, ...] = ("qrels",)
    rankmeter: str = ""
    help: str = ""


CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
ANY = ("qrels", "prefs", "qrels_prefs", "qrels_jg")
PREFS = ("prefs", "qrels_prefs")
_GAIN_HELP = (
    "Gains default to the grade; 'NAME.1=3.5,2=9' sets the gain of grade 1 to 3.5 and of\n"
    "    grade 2 to 9 (other grades keep their own value)."
)


def _prefs(name: str, rankmeter: str, text: str, count: bool = False) -> TrecMeasure:
    return TrecMeasure(
        name, count=count, aggregate="sum" if count else "mean", formats=PREFS, rankmeter=rankmeter, help=text
    )


MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure(
        "runid",
        aggregate="none",
        per_query=False,
        formats=ANY,
        rankmeter="(run tag; text)",
        help="The run id: the tag in the last line of the run file.",
    ),
    TrecMeasure(
        "num_q",
        count=True,
        aggregate="num_q",
        per_query=False,
        formats=ANY,
        rankmeter="num_q",
        help="Number of topics averaged over (every qrels topic with -c, otherwise the topics\n"
        "    with both judgments and results).",
    ),
    TrecMeasure(
        "num_ret",
        count=True,
        aggregate="sum",
        rankmeter="num_ret",
        help="Number of documents retrieved for the topic (after -M and -J); summed over topics.",
    ),
    TrecMeasure(
        "num_rel",
        count=True,
        aggregate="sum",
        rankmeter="num_rel(min_rel=l)",
        help="Number of relevant documents for the topic (grade >= -l level); summed over topics.",
    ),
    TrecMeasure(
        "num_rel_ret",
        count=True,
        aggregate="sum",
        rankmeter="num_rel_ret(min_rel=l)",
        help="Number of relevant documents retrieved; summed over topics.",
    ),
    TrecMeasure(
        "map",
        rankmeter="map(min_rel=l)",
        help="Mean average precision: the mean over relevant documents of the precision at the\n"
        "    rank of each (0 for relevant documents not retrieved).",
    ),
    TrecMeasure(
        "gm_map",
        aggregate="gmean",
        per_query=False,
        rankmeter="gm_map(min_rel=l)",
        help="Geometric mean over topics of average precision (each floored at 0.00001);\n"
        "    reported only in the summary.",
    ),
    TrecMeasure(
        "Rprec",
        rankmeter="rprec(min_rel=l)",
        help="Precision after R documents, R being the number of relevant documents.",
    ),
    TrecMeasure(
        "bpref",
        rankmeter="bpref(min_rel=l)",
        help="Binary preference: for each relevant document retrieved, one minus the fraction of\n"
        "    the first R judged non-relevant documents ranked above it; averaged over R.\n"
        "    Unjudged documents are ignored (Buckley and Voorhees, SIGIR 2004).",
    ),
    TrecMeasure(
        "recip_rank",
        rankmeter="rr(min_rel=l)",
        help="Reciprocal rank of the first relevant document retrieved (0 if none).",
    ),
    TrecMeasure(
        "iprec_at_recall",
        "cut_float",
        RECALL_LEVELS,
        rankmeter="iprec_at_recall(recall=x,min_rel=l)",
        help="Interpolated precision at recall levels: the best precision at that recall or any\n"
        "    higher recall. Default: -m iprec_at_recall.0,.1,.2,.3,.4,.5,.6,.7,.8,.9,1",
    ),
    TrecMeasure(
        "P",
        "cut",
        CUTS,
        rankmeter="p(min_rel=l)@k",
        help="Precision at cutoffs: relevant documents in the top k divided by k.\n"
        "    Default: -m P.5,10,15,20,30,100,200,500,1000",
    ),
    TrecMeasure(
        "relstring",
        "floats",
        (10.0,),
        aggregate="none",
        rankmeter="(per-topic text)",
        help="The relevance of the first N (default 10) documents as a string, one character\n"
        "    each: the grade 0-9, '>' above 9, '-' not in the qrels, '.' negative grade.\n"
        "    Printed for topics only. Default: -m relstring.10",
    ),
    TrecMeasure(
        "recall",
        "cut",
        CUTS,
        rankmeter="r(min_rel=l)@k",
        help="Recall at cutoffs: relevant documents in the top k divided by R.\n"
        "    Default: -m recall.5,10,15,20,30,100,200,500,1000",
    ),
    TrecMeasure(
        "infAP",
        rankmeter="infap(min_rel=l)",
        help="Inferred average precision for sampled judgments: documents in the qrels with a\n"
        "    negative grade are pooled but unjudged (Yilmaz and Aslam, CIKM 2006).",
    ),
    TrecMeasure(
        "gm_bpref",
        aggregate="gmean",
        per_query=False,
        rankmeter="gm_bpref(min_rel=l)",
        help="Geometric mean over topics of bpref (each floored at 0.00001); summary only.",
    ),
    TrecMeasure(
        "Rprec_mult",
        "cut_float",
        R_MULTIPLES,
        rankmeter="rprec_mult(mult=x,min_rel=l)",
        help="Precision after x*R documents (rounded as floor(x*R + 0.9)).\n"
        "    Default: -m Rprec_mult.0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
    ),
    TrecMeasure(
        "utility",
        "floats",
        (1.0, -1.0, 0.0, 0.0),
        rankmeter="utility(a=,b=,c=,d=,collection=N)",
        help="Set utility p1*relret + p2*nonrelret + p3*relmissed + p4*nonrelmissed; p4 needs\n"
        "    -N (documents in the collection). Default: -m utility.1,-1,0,0",
    ),
    TrecMeasure(
        "11pt_avg",
        "floats",
        RECALL_LEVELS,
        rankmeter="iprec_avg(levels=[...],min_rel=l)",
        help="Mean interpolated precision over recall levels (the 11 levels 0, 0.1, ..., 1 by\n"
        "    default; the name does not change with the levels).",
    ),
    TrecMeasure(
        "binG",
        rankmeter="bing(min_rel=l)",
        help="Binary G: mean over the relevant documents of 1/log2(2 + non-relevant above it).",
    ),
    TrecMeasure(
        "G",
        "pairs",
        rankmeter="g(gain=...)",
        help="G: each document's gain divided by log2(2 + gain still missing at its rank),\n"
        "    normalised by the total ideal gain. " + _GAIN_HELP,
    ),
    TrecMeasure(
        "dcg", "pairs", rankmeter="dcg(gain=...)", help="Discounted cumulative gain of the whole list. " + _GAIN_HELP
    ),
    TrecMeasure(
        "ideal_dcg",
        "pairs",
        rankmeter="idcg(gain=...)",
        help="DCG of the ideal ranking of all judged documents. " + _GAIN_HELP,
    ),
    TrecMeasure(
        "ndcg",
        "pairs",
        rankmeter="ndcg(gain=...)",
        help="Normalised DCG of the whole list (Jarvelin and Kekalainen, TOIS 2002).\n    " + _GAIN_HELP,
    ),
    TrecMeasure(
        "ndcg_rel",
        "pairs",
        rankmeter="ndcg_rel(gain=...)",
        help="nDCG averaged over the relevant documents (gain > 0); unretrieved ones take the\n"
        "    value at the end of the list. " + _GAIN_HELP,
    ),
    TrecMeasure(
        "Rndcg",
        "pairs",
        rankmeter="rndcg(gain=...,min_rel=l)",
        help="nDCG averaged at the ranks where the ideal gain changes. " + _GAIN_HELP,
    ),
    TrecMeasure(
        "ndcg_cut",
        "cut",
        CUTS,
        rankmeter="ndcg@k",
        help="nDCG at cutoffs, gain = grade. Default: -m ndcg_cut.5,10,15,20,30,100,200,500,1000",
    ),
    TrecMeasure(
        "map_cut",
        "cut",
        CUTS,
        rankmeter="map(min_rel=l)@k",
        help="Average precision over the top k (still divided by R).\n"
        "    Default: -m map_cut.5,10,15,20,30,100,200,500,1000",
    ),
    TrecMeasure(
        "relative_P",
        "cut",
        CUTS,
        rankmeter="relative_p(min_rel=l)@k",
        help="Relevant documents in the top k divided by min(k, R).\n"
        "    Default: -m relative_P.5,10,15,20,30,100,200,500,1000",
    ),
    TrecMeasure(
        "success",
        "cut",
        (1, 5, 10),
        rankmeter="success(min_rel=l)@k",
        help="1 if a relevant document is in the top k, else 0. Default: -m success.1,5,10",
    ),
    TrecMeasure("set_P", rankmeter="set_p(min_rel=l)", help="Relevant retrieved divided by retrieved."),
    TrecMeasure(
        "set_relative_P", rankmeter="set_relative_p(min_rel=l)", help="Relevant retrieved divided by min(retrieved, R)."
    ),
    TrecMeasure("set_recall", rankmeter="set_recall(min_rel=l)", help="Relevant retrieved divided by R."),
    TrecMeasure("set_map", rankmeter="set_map(min_rel=l)", help="Set precision times set recall."),
    TrecMeasure(
        "set_F",
        "floats",
        (1.0,),
        rankmeter="set_f(beta=x,min_rel=l)",
        help="(x+1) P R / (x P + R) of set precision P and set recall R (x = 1 by default).\n    Default: -m set_F.1.0",
    ),
    TrecMeasure(
        "num_nonrel_judged_ret",
        count=True,
        aggregate="sum",
        rankmeter="num_nonrel_judged_ret(min_rel=l)",
        help="Number of retrieved documents judged non-relevant; summed over topics.",
    ),
    _prefs("prefs_num_prefs_poss", "(prefs)", "Number of preferences stated by the judgments.", count=True),
    _prefs("prefs_num_prefs_ful", "(prefs)", "Number of preferences the ranking fulfils.", count=True),
    _prefs(
        "prefs_num_prefs_ful_ret",
        "(prefs)",
        "Number of preferences fulfilled among retrieved documents only.",
        count=True,
    ),
    _prefs(
        "prefs_simp",
        "(prefs)",
        "Fulfilled preferences / possible preferences (pairs counted once per\n    judgment group).",
    ),
    _prefs("prefs_pair", "(prefs)", "Mean over judgment-group document pairs of the fraction fulfilled."),
    _prefs("prefs_avgjg", "(prefs)", "prefs_simp computed per judgment group, averaged over the groups."),
    _prefs("prefs_avgjg_Rnonrel", "(prefs)", "prefs_avgjg weighted towards the top R non-relevant documents."),
    _prefs("prefs_simp_ret", "(prefs)", "prefs_simp over retrieved documents only."),
    _prefs("prefs_pair_ret", "(prefs)", "prefs_pair over retrieved documents only."),
    _prefs("prefs_avgjg_ret", "(prefs)", "prefs_avgjg over retrieved documents only."),
    _prefs("prefs_avgjg_Rnonrel_ret", "(prefs)", "prefs_avgjg_Rnonrel over retrieved documents only."),
    _prefs("prefs_simp_imp", "(prefs)", "prefs_simp counting implied preferences too."),
    _prefs("prefs_pair_imp", "(prefs)", "prefs_pair counting implied preferences too."),
    _prefs("prefs_avgjg_imp", "(prefs)", "prefs_avgjg counting implied preferences too."),
    TrecMeasure(
        "map_avgjg",
        formats=("qrels_jg",),
        rankmeter="(judgment groups)",
        help="map computed against each judgment group's qrels, averaged over the groups.",
    ),
    TrecMeasure(
        "P_avgjg",
        "cut",
        CUTS,
        formats=("qrels_jg",),
        rankmeter="(judgment groups)",
        help="P at cutoffs for each judgment group, averaged over the groups.",
    ),
    TrecMeasure(
        "Rprec_mult_avgjg",
        "cut_float",
        R_MULTIPLES,
        formats=("qrels_jg",),
        rankmeter="(judgment groups)",
        help="Rprec_mult for each judgment group, averaged over the groups.",
    ),
    TrecMeasure(
        "yaap",
        rankmeter="yaap(min_rel=l)",
        help="Yet another AP (Robertson, ECIR 2012): log((1 + S) / (1 + R - S)), S = R * AP.",
    ),
    TrecMeasure(
        "rbp",
        "pairs",
        rankmeter="rbp(p=,gain=...)",
        help="Rank-biased precision (Moffat and Zobel, TOIS 2008) with persistence p (default\n"
        "    0.9, -m rbp.p=0.95); gains are scaled into [0, 1]. " + _GAIN_HELP,
    ),
    TrecMeasure(
        "rbp_resid",
        "pairs",
        rankmeter="rbp_resid(p=)",
        help="The RBP residual: how much RBP could rise if every unjudged retrieved document\n"
        "    were relevant (0 when every retrieved document is judged). -m rbp_resid.p=0.95",
    ),
    TrecMeasure(
        "unj",
        "cut",
        (5, 10, 20),
        rankmeter="unj@k",
        help="Fraction of the top k documents that are unjudged (not in the qrels or with a\n"
        "    negative grade). Default: -m unj.5,10,20",
    ),
)

BY_NAME: dict[str, TrecMeasure] = {m.name: m for m in MEASURES}

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
    ),
    "set": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "utility",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
    ),
    "all_trec": (
        "runid",
        "num_q",
        "num_ret",
        "num_rel",
        "num_rel_ret",
        "map",
        "gm_map",
        "Rprec",
        "bpref",
        "recip_rank",
        "iprec_at_recall",
        "P",
        "relstring",
        "recall",
        "unj",
        "rbp",
        "rbp_resid",
        "infAP",
        "gm_bpref",
        "utility",
        "11pt_avg",
        "ndcg",
        "relative_P",
        "Rprec_mult",
        "success",
        "map_cut",
        "ndcg_cut",
        "ndcg_rel",
        "Rndcg",
        "binG",
        "G",
        "set_P",
        "set_recall",
        "set_relative_P",
        "set_map",
        "set_F",
        "num_nonrel_judged_ret",
    ),
    "all_prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
        "prefs_avgjg_Rnonrel",
        "prefs_simp_ret",
        "prefs_pair_ret",
        "prefs_avgjg_ret",
        "prefs_avgjg_Rnonrel_ret",
        "prefs_simp_imp",
        "prefs_pair_imp",
        "prefs_avgjg_imp",
    ),
    "prefs": (
        "runid",
        "num_q",
        "prefs_num_prefs_poss",
        "prefs_num_prefs_ful",
        "prefs_num_prefs_ful_ret",
        "prefs_simp",
        "prefs_pair",
        "prefs_avgjg",
    ),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


@dataclass(frozen=True)
class Requested:
    """A measure to compute, with the parameters given for it on the command line (if any)."""

    spec: TrecMeasure
    raw: str | None
    values: tuple[Any, ...]


@dataclass(frozen=True)
class Column:
    """One printed value of a requested measure.

    ``key`` is the canonical rankmeter name of the per-query value (``measure``,
    possibly with several cutoffs, evaluates it), or a special key: ``runid``, ``num_q``, ``relstring:N``, or
    the name of a value computed by the prefs or judgment-group engines.
    """

    name: str
    key: str
    spec: TrecMeasure
    measure: Measure | None = None


def _cut_long(raw: str, name: str) -> tuple[int, ...]:
    cuts = sorted(atol(t) for t in raw.split(","))
    if cuts[0] <= 0:
        raise TrecMeasureError(f"trec_eval: Negative cutoff detected in '{name}.{raw}'", status=2)
    if any(a == b for a, b in zip(cuts, cuts[1:], strict=False)):
        raise TrecMeasureError(f"trec_eval: duplicate cutoffs detected in '{name}.{raw}'", status=2)
    return tuple(cuts)


def _cut_float(raw: str, name: str) -> tuple[float, ...]:
    cuts = sorted(atof(t) for t in raw.split(","))
    if any(a == b for a, b in zip(cuts, cuts[1:], strict=False)):
        raise TrecMeasureError(f"trec_eval: duplicate cutoffs detected in '{name}.{raw}'", status=2)
    return tuple(cuts)


def _pairs(raw: str, name: str) -> tuple[tuple[str, float], ...]:
    items = raw.split(",")
    if not all(item.count("=") == 1 and item.split("=")[0] and item.split("=")[1] != "" for item in items):
        raise TrecMeasureError(f"trec_eval: malformed pair parameters in '{name}.{raw}'", status=2)
    return tuple((k, atof(v)) for k, v in (item.split("=") for item in items))


def parse_params(spec: TrecMeasure, raw: str) -> tuple[Any, ...]:
    """Parse a measure's parameter text in its style (see the module docstring)."""
    if spec.params == "cut":
        return _cut_long(raw, spec.name)
    if spec.params == "cut_float":
        return _cut_float(raw, spec.name)
    if spec.params == "floats":
        return tuple(atof(t) for t in raw.split(","))
    if spec.params == "pairs":
        return _pairs(raw, spec.name)
    return ()


def resolve(arguments: Sequence[str], rel_format: str = "qrels") -> list[Requested]:
    """The measures selected by the ``-m`` arguments (``official`` when there are none), in trec_eval's order.

    The first parameters given for a measure win, as in trec_eval.

    Raises
    ------
    TrecMeasureError
        ``trec_eval: illegal measure 'X'`` for an unknown name, or malformed parameters.
    """
    params: dict[str, str] = {}
    marked: set[str] = set()
    for arg in arguments or ["official"]:
        name, dot, raw = arg.partition(".")
        if dot:
            if not raw:
                raise TrecMeasureError(f"trec_eval: improper measure in parameter '{name}'")
            params.setdefault(name, raw)
        if name in NICKNAMES:
            marked.update(NICKNAMES[name])
        elif name in BY_NAME:
            marked.add(name)
        else:
            raise TrecMeasureError(f"trec_eval: illegal measure '{name}'")
    out = []
    for spec in MEASURES:
        if spec.name not in marked:
            continue
        given: str | None = params.get(spec.name) if spec.params != "none" else None
        values = parse_params(spec, given) if given is not None else spec.default
        out.append(Requested(spec, given, values))
    return out


def float_cut_name(name: str, value: float) -> str:
    """trec_eval's ``name_%3.2f`` in a buffer of len(name) + 10 bytes (longer text is cut off).

    >>> float_cut_name("iprec_at_recall", 0.1), float_cut_name("Rprec_mult", 5.0)
    ('iprec_at_recall_0.10', 'Rprec_mult_5.00')
    """
    return f"{name}_{value:3.2f}"[: len(name) + 9]


def gain_table(pairs: Sequence[tuple[str, float]]) -> GainTable | None:
    """The gain table of ``level=gain`` pairs whose level is an integer >= 0 (the first pair per level wins)."""
    table: dict[float, float] = {}
    for key, value in pairs:
        if re.fullmatch(r"[+-]?\d+", key) and atol(key) >= 0:
            table.setdefault(float(atol(key)), value)
    return GainTable.of(table) if table else None


def build_columns(req: Requested, level: int = 1, num_docs: int = 0) -> list[Column]:
    """The printed columns of one requested measure, each with the rankmeter measure computing it.

    Parameters
    ----------
    req : Requested
    level : int
        trec_eval ``-l``: the minimum grade of a relevant document (rankmeter ``min_rel``).
    num_docs : int
        trec_eval ``-N``: documents in the collection (``utility``).

    Returns
    -------
    list of Column
    """
    spec, values = req.spec, req.values
    name = spec.name
    mr: dict[str, Any] = {} if level == 1 else {"min_rel": float(level)}
    printed = f"{name}_{req.raw}" if req.raw is not None and spec.params in ("floats", "pairs") else name

    def single(m: Measure, label: str = printed) -> list[Column]:
        return [Column(label, str(m), spec, m)]

    def cuts(family: str, **params: Any) -> list[Column]:
        m = measure(family, list(values), **params)
        return [Column(f"{name}_{k}", str(s), spec, m) for k, s in zip(values, m.expand(), strict=True)]

    pairs = values if spec.params == "pairs" else ()
    table = gain_table(pairs)
    gain: dict[str, Any] = {"gain": table} if table is not None else {}
    persistence = [v for k, v in pairs if k == "p"]
    p: dict[str, Any] = {"p": persistence[-1]} if persistence else {}
    simple = {
        "num_ret": ("num_ret", {}),
        "num_rel": ("num_rel", mr),
        "num_rel_ret": ("num_rel_ret", mr),
        "map": ("map", mr),
        "gm_map": ("gm_map", mr),
        "Rprec": ("rprec", mr),
        "bpref": ("bpref", mr),
        "recip_rank": ("rr", mr),
        "infAP": ("infap", mr),
        "gm_bpref": ("gm_bpref", mr),
        "binG": ("bing", mr),
        "G": ("g", gain),
        "dcg": ("dcg", gain),
        "ideal_dcg": ("idcg", gain),
        "ndcg": ("ndcg", gain),
        "ndcg_rel": ("ndcg_rel", gain),
        "Rndcg": ("rndcg", {**gain, **mr}),
        "set_P": ("set_p", mr),
        "set_relative_P": ("set_relative_p", mr),
        "set_recall": ("set_recall", mr),
        "set_map": ("set_map", mr),
        "num_nonrel_judged_ret": ("num_nonrel_judged_ret", mr),
        "yaap": ("yaap", mr),
        "rbp": ("rbp", {**p, **gain}),
        "rbp_resid": ("rbp_resid", p),
    }
    cut_families = {
        "P": ("p", mr),
        "recall": ("r", mr),
        "ndcg_cut": ("ndcg", {}),
        "map_cut": ("map", mr),
        "relative_P": ("relative_p", mr),
        "success": ("success", mr),
        "unj": ("unj", {}),
    }
    if name in simple:
        family, params = simple[name]
        return single(measure(family, **params))
    if name in cut_families:
        family, params = cut_families[name]
        return cuts(family, **params)
    if name in ("runid", "num_q"):
        return [Column(name, name, spec)]
    if name == "relstring":
        return [Column(printed, f"relstring:{int(values[0]) if values else 0}", spec)]
    if name == "iprec_at_recall":
        return [
            Column(float_cut_name(name, v), str(m), spec, m)
            for v in values
            for m in [measure("iprec_at_recall", recall=v, **mr)]
        ]
    if name == "Rprec_mult":
        return [
            Column(float_cut_name(name, v), str(m), spec, m)
            for v in values
            for m in [measure("rprec_mult", mult=v, **mr)]
        ]
    if name == "utility":
        if len(values) != 4:
            raise TrecMeasureError(
                f"trec_eval.calc_utility: improper number of coefficients (utility needs 4, got {len(values)})",
                status=4,
            )
        a, b, c, d = values
        return single(measure("utility", a=a, b=b, c=c, d=d, collection=float(num_docs), **mr))
    if name == "11pt_avg":
        return single(measure("iprec_avg", levels=list(values), **mr))
    if name == "set_F":
        return single(measure("set_f", beta=values[0], **mr))
    if name == "P_avgjg":
        return [Column(f"{name}_{k}", f"{name}:{k}", spec) for k in values]
    if name == "Rprec_mult_avgjg":
        return [Column(float_cut_name(name, v), f"{name}:{v!r}", spec) for v in values]
    return [Column(name, name, spec)]  # prefs and judgment-group measures: computed by their engines
