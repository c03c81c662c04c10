"""MkDocs hook: one page per measure family, generated from the registry when the site is built.

The pages come from :data:`rankmeter.measures.FAMILIES` and ``ALIASES`` (what ``rankmeter measures``
prints), so a new family gets its page by itself. Each page's worked example is computed at build time
with :func:`rankmeter.evaluate` under every tie policy; the build fails (strict mode) when

- the value read from TREC files differs from the value of the same data given as dicts,
- ``pessimistic <= expected <= optimistic`` does not hold where the family has an exact expectation,
- a family cannot be computed on the example (give its ``Family`` an ``example``).
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import rankmeter
from rankmeter.errors import PolicyError
from rankmeter.measures import ALIASES, FAMILIES, similarity_families

TIES = ("trec", "stable", "pessimistic", "expected", "optimistic")
MEASURES_PAGE = Path(__file__).resolve().parent.parent / "measures.md"
QRELS = {"q1": {"d1": 3, "d2": 0, "d3": 1, "d4": 2, "d5": 0, "d6": 1}}
#: intent (subtopic) qrels for the diversity families: {query: {intent: {doc: grade}}}
INTENT_QRELS = {"q1": {"i1": {"d1": 1, "d2": 0, "d3": 1}, "i2": {"d3": 1, "d4": 1, "d6": 1}}}
RUN = {"q1": {"d1": 0.9, "d2": 0.7, "d3": 0.7, "d4": 0.4, "d7": 0.2}}
#: names of the same measure in other tools, with the difference that matters
PEERS: dict[str, list[tuple[str, str, str]]] = {
    "ndcg": [
        ("trec_eval", "`ndcg`, `ndcg_cut.k`", "same: linear gain, ideal from all judged documents"),
        ("ir_measures", "`nDCG`, `nDCG@k`", "same as trec_eval"),
        ("ranx", "`ndcg@k`", "linear gain; `ndcg_burges@k` is the exp gain"),
        (
            "scikit-learn",
            "`ndcg_score(y_true, y_score, k=k)`",
            "ideal from the scored list (`ideal=retrieved`), ties averaged (`ties=expected`)",
        ),
        ("torchmetrics", "`RetrievalNormalizedDCG(top_k=k)`", "ideal from the scored list"),
        ("keras-rs", "`NDCG(k=k)`", "exp gain 2^r − 1, ideal from the list: `ndcg(gain=exp,ideal=retrieved)@k`"),
        ("Spark", "`RankingMetrics.ndcgAt(k)`", "labels as a set: binary relevance by default"),
    ],
    "map": [
        ("trec_eval", "`map`, `map_cut.k`", "same"),
        ("ir_measures", "`AP`, `AP@k`", "same as trec_eval"),
        ("ranx", "`map@k`", "same"),
        (
            "scikit-learn",
            "`average_precision_score`",
            "one binary list, no cutoff, relevant documents not retrieved are ignored",
        ),
        ("torchmetrics", "`RetrievalMAP(top_k=k)`", "R counts only the relevant documents given in the batch"),
        ("keras-rs", "`MeanAveragePrecision(k=k)`", "R counts only the relevant items of the list"),
        ("Spark", "`RankingMetrics.meanAveragePrecisionAt(k)`", "binary relevance"),
    ],
    "p": [
        ("trec_eval", "`P.k`", "same"),
        ("ir_measures", "`P@k`", "same"),
        ("ranx", "`precision@k`", "same"),
        ("torchmetrics", "`RetrievalPrecision(top_k=k)`", "same on the given documents"),
        ("keras-rs", "`PrecisionAtK(k=k)`", "same on the list"),
        ("Spark", "`RankingMetrics.precisionAt(k)`", "binary relevance"),
    ],
    "r": [
        ("trec_eval", "`recall.k`", "same"),
        ("ir_measures", "`R@k`", "same"),
        ("ranx", "`recall@k`", "same"),
        ("torchmetrics", "`RetrievalRecall(top_k=k)`", "R from the given documents"),
        ("keras-rs", "`RecallAtK(k=k)`", "R from the list"),
        ("Spark", "`RankingMetrics.recallAt(k)`", "binary relevance"),
    ],
    "rr": [
        ("trec_eval", "`recip_rank`", "no cutoff"),
        ("ir_measures", "`RR`, `RR@k`", "same"),
        ("ranx", "`mrr@k`", "same"),
        ("torchmetrics", "`RetrievalMRR(top_k=k)`", "same on the given documents"),
        ("keras-rs", "`MRR(k=k)`", "same on the list"),
    ],
    "success": [
        ("trec_eval", "`success.k`", "same"),
        ("ir_measures", "`Success@k`", "same"),
        ("ranx", "`hit_rate@k`", "same"),
        ("torchmetrics", "`RetrievalHitRate(top_k=k)`", "same on the given documents"),
    ],
    "rprec": [
        ("trec_eval", "`Rprec`", "same"),
        ("ir_measures", "`Rprec`", "same"),
        ("ranx", "`r-precision`", "same"),
        ("torchmetrics", "`RetrievalRPrecision()`", "R from the given documents"),
    ],
    "bpref": [
        ("trec_eval", "`bpref`", "same"),
        ("ir_measures", "`Bpref`", "same"),
        ("ranx", "`bpref`", "same"),
    ],
}
PEERS["ap"] = PEERS["map"]
for _name, _peer in [
    ("insq", "INSQ(T=,max_rel=)"),
    ("inst", "INST(T=,max_rel=)"),
    ("bpm", "BPM(T=,max_rel=)@k"),
    ("nerr8", "NERR8(max_rel=)@k"),
    ("nerr9", "NERR9(max_rel=)@k"),
    ("nerr10", "NERR10(p=,max_rel=)"),
    ("nerr11", "NERR11(T=,max_rel=)"),
]:
    PEERS[_name] = [("ir_measures", f"`{_peer}`", "same (its cwl_eval provider: 1000 ranks, gains scaled to [0, 1])")]
PEERS["compat"] = [
    ("ir_measures", "`Compat(p=,normalize=)`", "same, except for runs with scores <= 0 or tied scores (measures.md)")
]
PEERS["q_measure"] = [
    ("NTCIREVAL", "`Q-measure`, `Q@k`", "same; `-g` gains are `gain=`"),
    ("pyNTCIREVAL", "`QMeasure`", "same"),
]
PEERS["gap"] = [("NTCIREVAL", "`GAP`, `GAP@k` (`-gap`)", "same")]
PEERS["irbu"] = [("NTCIREVAL", "`iRBU@k` (`-rbup p`)", "same; gmax is the top `-g` level")]
PEERS["mean_rank"] = [("PyKEEN", "`ArithmeticMeanRank`", "PyKEEN pools the ranks of all its ranking tasks")]
PEERS["amri"] = [("PyKEEN", "`AdjustedArithmeticMeanRankIndex`", "per query here; PyKEEN's pooled value: measures.md")]
# the beyond-accuracy families (docs/beyond-accuracy.md gives each definition and source)
PEERS["catalog_coverage"] = [
    ("RecBole", "`ItemCoverage`", "its number of items counts the padding id 0"),
    ("rectools", "`CatalogCoverage(k, normalize=True)`", "same (`normalize=False`: the count)"),
    ("MS Recommenders", "`catalog_coverage`", "divides by the training items (the default catalogue here)"),
]
PEERS["entropy"] = [("MS Recommenders", "`distributional_coverage`", "same")]
PEERS["recbole_entropy"] = [("RecBole", "`ShannonEntropy`", "same")]
PEERS["gini"] = [("RecBole", "`GiniIndex`", "same, over the catalogue given")]
PEERS["personalization"] = [("recmetrics", "`personalization`", "same; recmetrics needs lists of one length")]
PEERS["novelty"] = [
    ("rectools", "`MeanInvUserFreq`", "same (cold items as seen by one user)"),
    ("recmetrics", "`novelty`", "divides by its `n`, not by the list's length"),
]
PEERS["ms_novelty"] = [("MS Recommenders", "`novelty`", "same")]
PEERS["ild"] = [
    ("rectools", "`IntraListDiversity`", "its Hamming calculator: `ild(metric=hamming)`"),
    ("MS Recommenders", "`diversity` (`item_feature_vector`)", "leaves users with one item out (0 here)"),
]
PEERS["arp"] = [("rectools", "`AvgRecPopularity`", "same"), ("RecBole", "`AveragePopularity`", "same")]
PEERS["aplt"] = [("RecBole", "`TailPercentage`", "its tail: the `tail_ratio` least popular training items")]
PEERS["ms_serendipity"] = [("MS Recommenders", "`serendipity` (`item_feature_vector`)", "same")]
PEERS["rectools_serendipity"] = [("rectools", "`Serendipity`", "same")]


def formulas() -> dict[str, str]:
    """Family -> formula, from the table of ``docs/measures.md`` (rows whose first cell names the family)."""
    import re

    found: dict[str, str] = {}
    for line in MEASURES_PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or not cells[0].startswith("`"):
            continue
        for name in re.findall(r"`([a-z_0-9]+)(?:@k)?`", cells[0]):
            found.setdefault(name, cells[1])
    return found


def example_measure(name: str) -> str:
    fam = FAMILIES[name]
    params = fam.example
    return f"{name}{params}@3" if fam.cutoff != "none" else f"{name}{params}"


def judgments(name: str) -> dict[str, Any]:
    """The example's qrels: intent qrels for the families that need them."""
    from rankmeter.diversity import is_diversity

    return INTENT_QRELS if is_diversity(rankmeter.parse(example_measure(name))) else QRELS


#: the side information of the list-reading families' examples (training interactions, features, catalogue)
ITEMS_ARGS = (
    "interactions={'u1': ['d1', 'd2', 'd4'], 'u2': ['d1', 'd3'], 'u3': ['d1', 'd5', 'd6']}, "
    "features=[[1, 0], [0, 1], [1, 1], [2, 1], [1, 0], [1, 3], [0, 2]], "
    "catalog=['d1', 'd2', 'd3', 'd4', 'd5', 'd6', 'd7'], groups=['x', 'x', 'y', 'y', 'x', 'y', 'x']"
)


def extra(name: str) -> dict[str, Any]:
    """Keyword arguments of the example's call: ``items=`` for the families that read top-k lists."""
    if FAMILIES[name].reads != "lists":
        return {}
    return {"items": eval(f"rankmeter.Items({ITEMS_ARGS})")}


def qrels_lines(qrels: dict[str, Any]) -> str:
    """The example's qrels as TREC lines (``query intent docno grade`` for intent qrels)."""
    rows = []
    for q, judged in qrels.items():
        for key, value in judged.items():
            if isinstance(value, dict):
                rows += [f"{q} {key} {d} {g}\n" for d, g in value.items()]
            else:
                rows.append(f"{q} 0 {key} {value}\n")
    return "".join(rows)


def example_values(name: str) -> dict[str, float | None]:
    """The example under every tie policy (None: the policy is not defined for the family)."""
    m = example_measure(name)
    values: dict[str, float | None] = {}
    for ties in TIES:
        try:
            values[ties] = float(rankmeter.evaluate(judgments(name), RUN, [m], ties=ties, **extra(name))[m])
        except PolicyError:
            values[ties] = None
    with tempfile.TemporaryDirectory() as tmp:
        qrels, run = Path(tmp) / "qrels.txt", Path(tmp) / "run.txt"
        qrels.write_text(qrels_lines(judgments(name)))
        run.write_text("".join(f"q1 Q0 {d} 0 {s} demo\n" for d, s in RUN["q1"].items()))
        from_files = float(rankmeter.evaluate(str(qrels), str(run), [m], **extra(name))[m])
    both_nan = math.isnan(from_files) and values["trec"] is not None and math.isnan(values["trec"])  # one list
    if values["trec"] is None or not (both_nan or math.isclose(from_files, values["trec"], rel_tol=0, abs_tol=1e-12)):
        raise ValueError(f"{m}: {from_files} from TREC files, {values['trec']} from dicts")
    lo, mid, hi = values["pessimistic"], values["expected"], values["optimistic"]
    # between the two bounds, whichever is higher (mean_rank and mpr: lower is better)
    if None not in (lo, mid, hi) and not both_nan and not (min(lo, hi) - 1e-12 <= mid <= max(lo, hi) + 1e-12):  # type: ignore
        raise ValueError(f"{m}: expected {mid} is not between pessimistic {lo} and optimistic {hi}")
    return values


def shuffles(name: str) -> bool:
    """Whether the family accepts ``ties="shuffle"`` (seeded random order inside tied groups)."""
    m = example_measure(name)
    try:
        rankmeter.evaluate(judgments(name), RUN, [m], ties="shuffle", seed=0, **extra(name))
    except PolicyError:
        return False
    return True


def fast_paths(name: str) -> str:
    """The paths the family's traits open (``Family.traits``), in words."""
    t = FAMILIES[name].traits
    named = [
        ("dense rows ranked to their top k", t.top_k),
        ("judged items only", t.judged_items),
        ("positive grades only in dense ideals", t.positive_ideal),
        (f"array API (`{t.array_api}` formula)", t.array_api),
        (f"`rankmeter.keras.Metric` (`{t.keras}` formula)", t.keras),
        (f"Hamming buckets (`{t.hamming}` formula)", t.hamming),
    ]
    return ", ".join(text for text, on in named if on) or "none: the general path everywhere"


def page(name: str) -> str:
    fam = FAMILIES[name]
    aliases = sorted(a for a, f in ALIASES.items() if f == name)
    cut = {"required": "required (`@k`)", "optional": "optional (`@k`, or none: the whole list)", "none": "none"}[
        fam.cutoff
    ]
    lines = [f"# `{name}`", "", f"{fam.description[:1].upper()}{fam.description[1:]}.", ""]
    formula = formulas().get(name)
    if formula:
        lines += [f"**Formula** (one query; notation on [Measures](../measures.md)): `{formula}`", ""]
    lines += [
        "| property | value |",
        "|---|---|",
        f"| cutoff | {cut} |",
        f"| aggregated over queries by | {fam.aggregate} |",
        f"| fast paths ([traits](../measures.md#adding-a-measure-family)) | {fast_paths(name)} |",
    ]
    if fam.trec_name:
        lines.append(f"| trec_eval name | `{fam.trec_name}` |")
    if aliases:
        lines.append(f"| other names accepted | {', '.join(f'`{a}`' for a in aliases)} |")
    lines += ["", "## Parameters", ""]
    if fam.params:
        lines += ["| parameter | default | meaning |", "|---|---|---|"]
        for pname, param in fam.params.items():
            default = "none" if param.default is None else f"`{param.default}`"
            lines.append(f"| `{pname}` | {default} | {param.doc.replace('|', '&#124;')} |")
    else:
        lines.append("None besides the cutoff.")
    values = example_values(name)
    m = example_measure(name)
    qrels = judgments(name)
    if qrels is INTENT_QRELS:
        grades = "; ".join(
            f"intent {i}: {{{', '.join(f'{d}: {g}' for d, g in docs.items())}}}" for i, docs in qrels["q1"].items()
        )
    else:
        grades = ", ".join(f"{d}: {g}" for d, g in qrels["q1"].items())
    ranked = ", ".join(f"{d} ({s})" for d, s in RUN["q1"].items())
    lines += [
        "",
        "## Worked example",
        "",
        f"One query judged {{{grades}}}; the run scores {ranked}: d2 and d3 are tied.",
        f"`{m}` under each tie policy, computed by `rankmeter.evaluate` when this page was built "
        "(and checked: TREC files and dicts give the same value; pessimistic ≤ expected ≤ optimistic):",
        "",
        "| ties | value |",
        "|---|---|",
    ]
    for ties, value in values.items():
        lines.append(f"| `{ties}` | {'not defined for this family' if value is None else f'{value:.6f}'} |")
    supported = [t for t, v in values.items() if v is not None] + (["shuffle"] if shuffles(name) else [])
    lines += [
        "",
        "```python",
        "import rankmeter",
        f"qrels = {qrels!r}",
        f"run = {RUN!r}",
        *([f"items = rankmeter.Items({ITEMS_ARGS})"] if extra(name) else []),
        f"rankmeter.evaluate(qrels, run, [{m!r}], ties='trec'{', items=items' if extra(name) else ''})[{m!r}]"
        f"  # {values['trec']:.6f}",
        "```",
        "",
        "## Tie policies",
        "",
        f"Supported: {', '.join(f'`{t}`' for t in supported)} (see [semantics](../semantics.md)).",
    ]
    if name in PEERS:
        lines += ["", "## In other tools", "", "| tool | name | difference |", "|---|---|---|"]
        lines += [f"| {tool} | {peer} | {diff} |" for tool, peer, diff in PEERS[name]]
    return "\n".join(lines) + "\n"


def index() -> str:
    lines = [
        "# Measure families",
        "",
        "Generated from the registry (`rankmeter.measures.FAMILIES`, what `rankmeter measures` prints). "
        "The formulas and sources are on [Measures](../measures.md).",
        "",
        "| family | definition | cutoff | trec_eval |",
        "|---|---|---|---|",
    ]
    for name, fam in FAMILIES.items():
        lines.append(f"| [`{name}`]({name}.md) | {fam.description} | {fam.cutoff} | {fam.trec_name or '—'} |")
    lines += [
        "",
        "## Judgment-free families",
        "",
        "They compare two runs ([`rankmeter.similarity`](../similarity.md)); `@k` cuts both lists "
        "(`rankmeter.measures.similarity_families`).",
        "",
        "| family | definition | cutoff | parameters |",
        "|---|---|---|---|",
    ]
    for fam in similarity_families.FAMILIES:
        params = ", ".join(f"`{p}={param.default}`" for p, param in fam.params.items()) or "—"
        lines.append(f"| `{fam.name}` | {fam.description} | {fam.cutoff} | {params} |")
    return "\n".join(lines) + "\n"


def on_config(config: Any) -> Any:
    """Add the family pages to the navigation, after the page holding ``families/index.md``."""
    entries = [{"All families": "families/index.md"}] + [{name: f"families/{name}.md"} for name in FAMILIES]
    for item in config["nav"]:
        if isinstance(item, dict) and "Measure families" in item:
            item["Measure families"] = entries
    return config


def on_files(files: Any, config: Any) -> Any:
    """Generate ``families/<name>.md`` for every family and ``families/index.md``."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "families/index.md", content=index()))
    for name in FAMILIES:
        files.append(File.generated(config, f"families/{name}.md", content=page(name)))
    return files
