"""One self-contained HTML report of a comparison (needs the ``report`` extra: ``pip install 'rankmeter[report]'``).

:func:`html` evaluates runs and compares them (as :func:`rankmeter.compare`
does) and writes one HTML file; :func:`render_html` renders a
:class:`~rankmeter.Comparison` computed before. The file holds everything it
shows, so it opens from disk with no network and can be sent as it is:

- the systems x measures table: means with their confidence intervals, ``†``
  where a system differs significantly from the baseline;
- the paired tests against the baseline with raw and corrected p-values, mean
  difference, Cohen's :math:`d_z` and wins / ties / losses;
- per-query plots against the baseline (differences sorted by size, and a
  scatter of the two systems' values), each query shown on hover;
- a per-query table, sortable by any column;
- diagnostics: queries missing from a run, queries found only in a run,
  queries without relevant documents, tied groups straddling a cutoff;
- the command, the options, the semantics and the versions that produced it.

The page is a `Jinja2 <https://jinja.palletsprojects.com>`_ template with
autoescaping; the plots are `Vega-Lite <https://vega.github.io/vega-lite/>`_
specifications drawn by Vega, whose JavaScript comes from the
``vl-convert-python`` package and is inlined. Data travel as one JSON block in
which ``<``, ``>`` and ``&`` are escaped, so no id can close a tag or inject
markup. Jinja2 and vl-convert are imported only when a report is rendered.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import platform
import shlex
from collections.abc import Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from rankmeter._version import __version__
from rankmeter.io.output import write_text_atomic
from rankmeter.results import segment_text

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from rankmeter.core.options import EvaluationOptions
    from rankmeter.core.semantics import Semantics
    from rankmeter.results import EvaluationResult
    from rankmeter.stats.comparison import Comparison
    from rankmeter.stats.options import ComparisonKeywords, ComparisonOptions

TEMPLATES = Path(__file__).parent / "templates"
#: Colours shared with the PNG plots: better than the baseline, worse, equal, neutral.
COLORS = {"better": "#2a9d55", "worse": "#d1495b", "equal": "#9e9e9e", "neutral": "#3b6ea8"}
#: Per-run diagnostics shown in the report: metadata key -> column title.
DIAGNOSTICS = {
    "queries_evaluated": "evaluated",
    "queries_in_run": "in run",
    "queries_missing": "judged, missing from run",
    "queries_run_only": "in run only (skipped)",
    "queries_empty": "no relevant judged doc",
    "queries_with_ties": "with tied scores",
    "queries_with_ties_at_cutoff": "tie across a cutoff",
    "duplicates_dropped": "duplicates dropped",
    "unjudged_dropped": "unjudged dropped",
}
_MISSING_REQUIREMENT = "the HTML report needs the report extra: pip install 'rankmeter[report]'"


def _finite(x: Any) -> float | None:
    if x is None:
        return None
    value = float(x)
    return value if math.isfinite(value) else None


def fmt(x: Any, digits: int = 4) -> str:
    """A number with ``digits`` decimals, ``–`` for a missing or non-finite value.

    >>> fmt(0.123456), fmt(float("nan")), fmt(None), fmt(-0.5, 2)
    ('0.1235', '–', '–', '-0.50')
    """
    value = None if x is None else _finite(x)
    return "\u2013" if value is None else f"{value:.{digits}f}"


def fmt_p(x: Any) -> str:
    """A p-value with 3 significant digits, ``< 1e-4`` below that.

    >>> fmt_p(0.0123456), fmt_p(1.0), fmt_p(3e-7), fmt_p(float("nan"))
    ('0.0123', '1', '< 1e-4', '–')
    """
    value = None if x is None else _finite(x)
    if value is None:
        return "\u2013"
    return "< 1e-4" if value < 1e-4 else f"{value:.3g}"


def script_json(obj: Any) -> str:
    """Strict JSON safe inside an HTML ``<script>`` element: ``<``, ``>`` and ``&`` are escaped.

    Non-finite floats become ``null``. The escapes are JSON's own, so
    ``JSON.parse`` gives back the original strings.

    >>> script_json({"q": "</script><b>", "v": [1.5, float("nan")]})
    '{"q":"\\\\u003c/script\\\\u003e\\\\u003cb\\\\u003e","v":[1.5,null]}'
    """
    try:  # plain finite data (the per-query values) needs no walk
        text = json.dumps(obj, allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    except (TypeError, ValueError):
        text = json.dumps(_plain(obj), allow_nan=False, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _plain(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if hasattr(obj, "tolist"):
        return _plain(obj.tolist())
    if isinstance(obj, bool) or obj is None or isinstance(obj, (int, str)):
        return obj
    if isinstance(obj, float):
        return _finite(obj)
    return str(obj)


def versions() -> dict[str, str]:
    """Versions of what computed and drew the report (rankmeter, Python, NumPy, SciPy, Jinja2, Vega)."""
    import numpy
    import scipy

    found = {
        "rankmeter": __version__,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }
    try:
        import vl_convert

        found["jinja2"] = metadata.version("jinja2")
        found["vl-convert"] = metadata.version("vl-convert-python")
        found["vega"] = vl_convert.get_vega_version()
        found["vega-lite"] = vl_convert.get_vegalite_versions()[-1]
        found["vega-embed"] = vl_convert.get_vega_embed_version()
    except (ImportError, metadata.PackageNotFoundError):  # pragma: no cover - depends on the environment
        pass
    found["platform"] = platform.platform(terse=True)
    return found


def diagnostics(evaluations: Mapping[str, EvaluationResult] | None) -> list[dict[str, Any]]:
    """One row per system of the counts in :data:`DIAGNOSTICS`, with the missing and run-only query ids.

    >>> from rankmeter.stats.significance import evaluate_systems
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    >>> res = evaluate_systems(qrels, {"a": {"q1": {"d1": 1.0}}, "b": {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}}}, "rr")
    >>> [(row["system"], row["counts"]["queries_missing"], row["missing_query_ids"]) for row in diagnostics(res)]
    [('a', 1, ['q2']), ('b', 0, [])]
    """
    rows = []
    for name, result in (evaluations or {}).items():
        meta = result.metadata
        rows.append(
            {
                "system": name,
                "source": str(meta.get("run_source") or ""),
                "counts": {key: meta.get(key) for key in DIAGNOSTICS},
                "missing_query_ids": [str(q) for q in meta.get("missing_query_ids") or []],
                "run_only_query_ids": [str(q) for q in meta.get("run_only_query_ids") or []],
            }
        )
    return rows


def _specs() -> dict[str, Any]:
    """Vega-Lite specifications of the plots; the page fills in their ``data`` and titles."""
    outcome = {
        "field": "outcome",
        "type": "nominal",
        "title": "system vs baseline",
        "scale": {"domain": ["better", "worse", "equal"], "range": [COLORS[k] for k in ("better", "worse", "equal")]},
    }
    tooltip = [
        {"field": "query", "type": "nominal", "title": "query"},
        {"field": "base", "type": "quantitative", "title": "baseline", "format": ".4f"},
        {"field": "value", "type": "quantitative", "title": "system", "format": ".4f"},
        {"field": "delta", "type": "quantitative", "title": "\u0394", "format": "+.4f"},
    ]
    schema = "https://vega.github.io/schema/vega-lite/v6.json"
    return {
        "differences": {
            "$schema": schema,
            "width": "container",
            "height": 260,
            "mark": {"type": "rect", "tooltip": True},
            "encoding": {
                "x": {
                    "field": "rank",
                    "type": "quantitative",
                    "title": "queries, sorted by \u0394",
                    "axis": {"format": "d", "tickMinStep": 1},
                },
                "x2": {"field": "rank_end"},
                "y": {"field": "delta", "type": "quantitative", "title": "\u0394 = system \u2212 baseline"},
                "y2": {"datum": 0},
                "color": outcome,
                "tooltip": tooltip,
            },
        },
        "paired": {
            "$schema": schema,
            "width": 300,
            "height": 300,
            "layer": [
                {
                    "data": {"name": "diagonal"},
                    "mark": {"type": "line", "color": "#333", "strokeWidth": 1},
                    "encoding": {
                        "x": {"field": "v", "type": "quantitative"},
                        "y": {"field": "v", "type": "quantitative"},
                    },
                },
                {
                    "mark": {"type": "circle", "size": 30, "opacity": 0.75, "tooltip": True},
                    "encoding": {
                        "x": {"field": "base", "type": "quantitative", "title": "baseline"},
                        "y": {"field": "value", "type": "quantitative", "title": "system"},
                        "color": outcome,
                        "tooltip": tooltip,
                    },
                },
            ],
        },
        "means": {
            "$schema": schema,
            "width": "container",
            "height": 220,
            "layer": [
                {
                    "mark": {"type": "rule", "strokeWidth": 2},
                    "encoding": {
                        "x": {
                            "field": "system",
                            "type": "nominal",
                            "sort": None,
                            "title": None,
                            "axis": {"labelAngle": -30},
                        },
                        "y": {"field": "low", "type": "quantitative", "title": "mean and CI", "scale": {"zero": False}},
                        "y2": {"field": "high"},
                        "color": {
                            "field": "role",
                            "type": "nominal",
                            "legend": None,
                            "scale": {"domain": ["baseline", "system"], "range": [COLORS["equal"], COLORS["neutral"]]},
                        },
                    },
                },
                {
                    "mark": {"type": "point", "filled": True, "size": 60, "tooltip": True},
                    "encoding": {
                        "x": {"field": "system", "type": "nominal", "sort": None},
                        "y": {"field": "mean", "type": "quantitative"},
                        "color": {"field": "role", "type": "nominal", "legend": None},
                        "tooltip": [
                            {"field": "system", "type": "nominal"},
                            {"field": "mean", "type": "quantitative", "format": ".4f"},
                            {"field": "low", "type": "quantitative", "title": "CI low", "format": ".4f"},
                            {"field": "high", "type": "quantitative", "title": "CI high", "format": ".4f"},
                        ],
                    },
                },
            ],
        },
    }


def report_data(comparison: Comparison) -> dict[str, Any]:
    """What the page's script draws from: ids, per-query values and the plots' specifications.

    ``values[s][m]`` is the list of system ``s``'s values on measure ``m``, in the order of ``queries``.

    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "q2", "q3"]
    >>> cmp = compare_per_query({"a": (q, ["map"], [[.1], [.5], [.3]]), "b": (q, ["map"], [[.2], [.4], [.5]])})
    >>> data = report_data(cmp)
    >>> data["baseline"], data["queries"], data["values"]["b"]["map"]
    ('a', ['q1', 'q2', 'q3'], [0.2, 0.4, 0.5])
    """
    measures = comparison.measures
    return {
        "baseline": comparison.baseline,
        "systems": comparison.names,
        "measures": measures,
        "queries": [str(q) for q in comparison.query_ids],
        "values": {name: {m: comparison.values(name, m).tolist() for m in measures} for name in comparison.names},
        "systems_table": [
            {"name": r.name, "measure": r.measure, "mean": r.mean, "low": r.ci_low, "high": r.ci_high}
            for r in comparison.systems
        ],
        "specs": _specs(),
        "colors": COLORS,
    }


def _vega_bundle() -> str:
    try:
        import vl_convert
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(_MISSING_REQUIREMENT) from None
    # a "</script" inside the library would end the inline element early
    bundle = cast(Any, vl_convert).javascript_bundle()  # the default snippet: vegaEmbed on window
    return str(bundle).replace("</script", "<\\/script")


def _environment() -> Any:
    try:
        import jinja2
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(_MISSING_REQUIREMENT) from None
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["fmt"] = fmt
    env.filters["fmt_p"] = fmt_p
    env.filters["num"] = lambda x: "" if x is None or _finite(x) is None else repr(float(x))
    return env


def render_html(
    comparison: Comparison,
    *,
    evaluations: Mapping[str, EvaluationResult] | None = None,
    title: str | None = None,
    command: str | Sequence[str] | None = None,
) -> str:
    """The HTML report of ``comparison`` as one self-contained page.

    Parameters
    ----------
    comparison : Comparison
        From :func:`rankmeter.compare` or :func:`rankmeter.compare_per_query`.
    evaluations : mapping of str to EvaluationResult, optional
        Each system's evaluation (:func:`rankmeter.stats.significance.evaluate_systems`),
        for the diagnostics section; without it the section says only which
        queries the comparison dropped.
    title : str, optional
        Page title; default ``"rankmeter report: <systems>"``.
    command : str or sequence of str, optional
        The command that produced the report, shown verbatim (a sequence is
        quoted with :func:`shlex.join`).

    Returns
    -------
    str
        The page (UTF-8 text).

    Examples
    --------
    >>> from rankmeter.stats import compare_per_query
    >>> q = ["q1", "<script>alert(1)</script>"]
    >>> cmp = compare_per_query({"a": (q, ["map"], [[.1], [.5]]), "b": (q, ["map"], [[.2], [.4]])})
    >>> page = render_html(cmp, title="demo")
    >>> page.startswith("<!DOCTYPE html>"), "<script>alert" in page, "src=\\"http" in page
    (True, False, False)
    """
    env = _environment()
    names = comparison.names
    if isinstance(command, str) or command is None:
        shown = command
    else:
        shown = shlex.join([str(c) for c in command])
    meta = comparison.metadata
    first = next(iter(evaluations.values())) if evaluations else None
    semantics = dict(first.metadata.get("semantics") or {}) if first is not None else {}
    template = env.get_template("report.html.j2")
    return str(
        template.render(
            title=title or f"rankmeter report: {', '.join(names)}",
            generated=_dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
            command=shown,
            versions=versions(),
            meta=meta,
            semantics=semantics,
            qrels_source=str(first.metadata.get("qrels_source") or "") if first is not None else "",
            names=names,
            measures=comparison.measures,
            baseline=comparison.baseline,
            systems={(r.name, r.measure): r for r in comparison.systems},
            pairs=comparison.pairs,
            pair=comparison.pair,
            groups=comparison.groups,
            segment_text=segment_text,
            diagnostics=diagnostics(evaluations),
            diagnostic_columns=DIAGNOSTICS,
            data_json=script_json(report_data(comparison)),
            comparison_json=script_json(comparison.to_dict()),
            style=(TEMPLATES / "report.css").read_text(encoding="utf-8"),
            script=(TEMPLATES / "report.js").read_text(encoding="utf-8"),
            vega=_vega_bundle(),
        )
    )


def html(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: str | Sequence[str],
    *,
    output: str | Path | None = None,
    title: str | None = None,
    command: str | Sequence[str] | None = None,
    semantics: Semantics | None = None,
    evaluate_options: EvaluationOptions | Mapping[str, Any] | None = None,
    options: ComparisonOptions | None = None,
    group_by: Any = None,
    **keywords: Unpack[ComparisonKeywords],
) -> str:
    """Evaluate and compare ``runs`` and render the HTML report (written to ``output`` if given).

    The numbers are those of :func:`rankmeter.compare` with the same
    arguments (and of ``rankmeter compare --format json``); the page adds each
    run's diagnostics. Every keyword argument from ``baseline`` on is
    :func:`rankmeter.compare`'s.

    Parameters
    ----------
    qrels : path or Qrels
        Relevance judgments.
    runs : mapping
        System name -> run (path, table, dict or Run); the first is the default baseline.
    measures : str or sequence of str
        Measure names.
    output : str or Path, optional
        Where to write the page (UTF-8), through a temporary file renamed over it; its folder must exist.
    title, command
        See :func:`render_html`; ``command`` defaults to this call, written
        out by :func:`python_call`.
    semantics, evaluate_options
        How every run is evaluated, as in :func:`rankmeter.compare`.
    group_by : mapping, table, str, path or GroupBy, optional
        The segment of each query, as :func:`rankmeter.compare` takes it:
        the page gets a per-segment table (means, CIs, significance within
        each segment).
    options : ComparisonOptions, optional
        The statistics' choices, as in :func:`rankmeter.compare`.
    **keywords
        The fields of :class:`~rankmeter.ComparisonOptions` one by one
        (``baseline=``, ``test=``, ``n_resamples=``, ...), as in
        :func:`rankmeter.compare`.

    Returns
    -------
    str
        The page.

    Examples
    --------
    >>> import rankmeter, tempfile, pathlib
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 1, "d4": 1}, "q3": {"d5": 1}}
    >>> runs = {"bm25": {"q1": {"d1": 2.0, "d2": 1.0}, "q2": {"d3": 1.0, "d9": 2.0}, "q3": {"d5": 1.0}},
    ...         "dense": {"q1": {"d2": 2.0, "d1": 1.0}, "q2": {"d3": 2.0, "d4": 1.0}, "q3": {"d5": 1.0}}}
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     page = rankmeter.report.html(qrels, runs, ["ndcg@10", "rr"], output=pathlib.Path(tmp) / "r.html",
    ...                                  n_resamples=200)
    ...     written = (pathlib.Path(tmp) / "r.html").read_text(encoding="utf-8")
    >>> written == page, 'data-system="dense"' in page
    (True, True)
    """
    from rankmeter.stats.options import comparison_options
    from rankmeter.stats.significance import check_runs, compare_per_query, evaluate_systems, segments_of

    opts = comparison_options("html", options, dict(keywords))
    check_runs(runs, opts)
    _environment()  # a missing extra fails before the evaluation
    segments = segments_of(group_by, qrels, runs, evaluate_options)
    evaluations = evaluate_systems(qrels, runs, measures, semantics=semantics, evaluate_options=evaluate_options)
    comparison = compare_per_query(
        {name: (list(r.query_ids), list(r.measure_names), r.values) for name, r in evaluations.items()},
        options=opts,
        group_by=segments,
    )
    page = render_html(
        comparison,
        evaluations=evaluations,
        title=title,
        command=command
        if command is not None
        else python_call(
            qrels, runs, measures, semantics, {**opts.changed(), **({"group_by": group_by} if group_by else {})}
        ),
    )
    if output is not None:
        write_text_atomic(output, page)
    return page


def _shown(value: Any) -> str:
    if isinstance(value, (str, Path, int, float, bool)) or value is None:
        return repr(str(value) if isinstance(value, Path) else value)
    if isinstance(value, Mapping) and len(value) <= 50 and all(isinstance(v, (str, Path)) for v in value.values()):
        return "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return repr(list(value))
    return f"<{type(value).__name__}>"


def python_call(
    qrels: Any,
    runs: Mapping[str, Any],
    measures: Any,
    semantics: Any = None,
    options: Mapping[str, Any] | None = None,
) -> str:
    """The call of :func:`html` as text, for the page's provenance: paths and names as given, objects by type.

    >>> python_call("qrels.txt", {"bm25": "bm25.run", "dense": {"q1": {"d1": 1.0}}}, ["map"], None, {"test": "t"})
    "rankmeter.report.html('qrels.txt', {'bm25': 'bm25.run', 'dense': <dict>}, ['map'], test='t')"
    """
    shown_runs = (
        "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in runs.items()) + "}"
        if isinstance(runs, Mapping)
        else _shown(runs)
    )
    parts = [_shown(qrels), shown_runs, _shown(measures)]
    if semantics is not None:
        parts.append(f"semantics={semantics!r}")
    parts += [f"{k}={_shown(v)}" for k, v in (options or {}).items()]
    return f"rankmeter.report.html({', '.join(parts)})"
