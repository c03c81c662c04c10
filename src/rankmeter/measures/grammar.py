"""The measure-name grammar.

::

    measure  := family [ "(" param ("," param)* ")" ] [ "@" cutoff ]
    param    := name "=" value          e.g. gain=exp, min_rel=2, gain={1:1,2:3},
                                             discount=jarvelin(2), ideal=retrieved
    cutoff   := int | "[" int ("," int)* "]"

Family names are case-insensitive and accept common aliases (``nDCG``,
``P``, ``MRR``, ``recip_rank``, ``hit_rate``, ``R-prec``); the canonical
name (``str(measure)``) omits default parameters and sorts the rest, so
``parse(str(m)) == m``.
"""

from __future__ import annotations

import re
from typing import Any

from rankmeter.errors import MeasureSyntaxError
from rankmeter.measures._tables import canonical_name, family_row
from rankmeter.measures.base import Measure
from rankmeter.measures.peer_names import CUTOFF_PARAMS, FAMILY_BY_PARAM, PARAM_ALIASES, PARAM_VALUES, PRESETS

_HEAD = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_\-]*)\s*")


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _matching_paren(text: str, start: int) -> int:
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "([{":
            depth += 1
        elif text[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    return -1


MAX_CUTOFF = 2**63 - 1
"""The largest cutoff: an int64, as the kernels hold cutoffs."""


def _parse_cutoffs(text: str, source: str) -> tuple[tuple[int, ...], bool]:
    text = text.strip()
    list_form = text.startswith("[")
    if list_form:
        if not text.endswith("]"):
            raise MeasureSyntaxError(f"measure {source!r}: cutoff list must end with ']'")
        items = [t.strip() for t in text[1:-1].split(",") if t.strip()]
    else:
        items = [text]
    cutoffs = []
    for item in items:
        if not re.fullmatch(r"[0-9]+", item):  # ASCII digits only, as in every number rankmeter reads
            raise MeasureSyntaxError(f"measure {source!r}: cutoff {item!r} is not a positive integer")
        if len(item.lstrip("0")) > len(str(MAX_CUTOFF)) or int(item) > MAX_CUTOFF:
            shown = item if len(item) <= 30 else f"{item[:12]}...({len(item)} digits)"
            named = source if len(source) <= 60 else f"{source[:30]}...{source[-10:]}"
            raise MeasureSyntaxError(f"measure {named!r}: cutoff {shown} is too large (at most {MAX_CUTOFF})")
        k = int(item)
        if k < 1:
            raise MeasureSyntaxError(f"measure {source!r}: cutoff must be >= 1, got {k}")
        cutoffs.append(k)
    if not cutoffs:
        raise MeasureSyntaxError(f"measure {source!r}: empty cutoff list")
    return tuple(cutoffs), list_form


def canonical_family(name: str) -> str:
    """Canonical family for a name or alias (case-insensitive).

    >>> canonical_family("nDCG"), canonical_family("recip_rank"), canonical_family("P")
    ('ndcg', 'rr', 'p')
    """
    key = name.lower()
    family = canonical_name(key)
    if family is None:
        from rankmeter.measures._tables import FAMILIES

        known = ", ".join(sorted(FAMILIES))
        raise MeasureSyntaxError(f"unknown measure {name!r}{did_you_mean(key)}; known measures: {known}")
    return family


def did_you_mean(name: str) -> str:
    """``"; did you mean 'ndcg'?"`` for the closest known name (family, alias or preset), or ``""``.

    >>> did_you_mean("ndgc"), did_you_mean("zzzzzz")
    ("; did you mean 'ndcg'?", '')
    """
    import difflib

    from rankmeter.measures._tables import ALIASES, FAMILIES

    close = difflib.get_close_matches(name.lower(), [*FAMILIES, *ALIASES, *PRESETS], n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def _preset(name: str) -> tuple[str, dict[str, Any]]:
    """The family and parameters a name stands for: a preset (``ndcg_burges``) or a plain family / alias."""
    preset = PRESETS.get(name.lower())
    if preset is None:
        return canonical_family(name), {}
    family, params = preset
    return family, {k: family_row(family).params[k].parse(v, name) for k, v in params}


def measure(family: str, cutoffs: int | list[int] | tuple[int, ...] | None = None, **params: Any) -> Measure:
    """Build and validate a measure from Python values.

    Parameters
    ----------
    family : str
        Family name or alias.
    cutoffs : int or sequence of int, optional
    **params
        Family parameters; callables are allowed for ``gain`` and ``discount``.

    Examples
    --------
    >>> str(measure("ndcg", [5, 10], gain="exp"))
    'ndcg(gain=exp)@[5,10]'
    >>> str(measure("P", 5, min_rel=2))
    'p(min_rel=2)@5'
    """
    canonical, preset = _preset(family)
    for key, value in preset.items():
        if key in params:
            raise MeasureSyntaxError(f"measure {family!r}: parameter {key!r} is set by the name ({value})")
        params[key] = value
    fam = family_row(canonical)
    list_form = isinstance(cutoffs, list | tuple)
    cut: tuple[int, ...] | None
    if cutoffs is None:
        cut = None
    elif isinstance(cutoffs, list | tuple):
        cut = tuple(int(k) for k in cutoffs)
    else:
        cut = (int(cutoffs),)
    name = f"{fam.name}@{cutoffs}" if cutoffs is not None else fam.name
    if cut is not None and any(k < 1 for k in cut):
        raise MeasureSyntaxError(f"measure {name!r}: cutoffs must be >= 1, got {list(cut)}")
    if cut is not None and not cut:
        raise MeasureSyntaxError(f"measure {name!r}: empty cutoff list")
    if fam.cutoff == "required" and cut is None:
        raise MeasureSyntaxError(f"measure {fam.name!r} needs a cutoff, e.g. '{fam.name}@10'")
    if fam.cutoff == "none" and cut is not None:
        raise MeasureSyntaxError(f"measure {fam.name!r} takes no cutoff, got '@{cutoffs}'")
    checked = []
    for key, value in params.items():
        if key not in fam.params:
            allowed = ", ".join(fam.params) or "none"
            raise MeasureSyntaxError(f"measure {fam.name!r} has no parameter {key!r} (parameters: {allowed})")
        spec = fam.params[key]
        value = spec.convert(value, fam.name)
        if value != spec.default:
            checked.append((key, value))
    return Measure(fam.name, tuple(sorted(checked)), cut, list_form and cut is not None and len(cut) > 0)


def parse(text: str | Measure) -> Measure:
    """Parse a measure name.

    Examples
    --------
    >>> m = parse("nDCG(gain=exp)@[1,5,10]")
    >>> str(m)
    'ndcg(gain=exp)@[1,5,10]'
    >>> parse(str(m)) == m
    True
    >>> str(parse("p(min_rel=2)@5")), str(parse("MAP@1000")), str(parse("rr"))
    ('p(min_rel=2)@5', 'map@1000', 'rr')
    >>> str(parse("AP(rel=2)@100"))  # ir_measures' spelling of the threshold
    'ap(min_rel=2)@100'
    >>> str(parse("ndcg_burges@10")), str(parse("nDCG(dcg=exp-log2)@10")), str(parse("IPrec@0.5"))
    ('ndcg(gain=exp)@10', 'ndcg(gain=exp)@10', 'iprec_at_recall(offset=0.9,recall=0.5)')
    """
    if isinstance(text, Measure):
        return text
    source = text
    head = _HEAD.match(text)
    if not head:
        raise MeasureSyntaxError(f"cannot parse measure {source!r}: expected a name like 'ndcg@10'")
    family, preset = _preset(head.group(1))
    rest = text[head.end() :]
    params: dict[str, Any] = {}
    if rest.startswith("("):
        end = _matching_paren(rest, 0)
        if end < 0:
            raise MeasureSyntaxError(f"measure {source!r}: unbalanced parentheses")
        for item in _split_top_level(rest[1:end]):
            if "=" not in item:
                raise MeasureSyntaxError(f"measure {source!r}: parameter {item!r} must look like name=value")
            key, value = (s.strip() for s in item.split("=", 1))
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]  # ir_measures quotes text values: nDCG(dcg='exp-log2')
            key = PARAM_ALIASES.get(key, key)
            key, value = PARAM_VALUES.get((key, value), (key, value))
            if key in params:
                raise MeasureSyntaxError(f"measure {source!r}: parameter {key!r} given twice")
            family = FAMILY_BY_PARAM.get((family, key), family)
            fam = family_row(family)
            if key not in fam.params:
                allowed = ", ".join(fam.params) or "none"
                raise MeasureSyntaxError(
                    f"measure {source!r}: {family} has no parameter {key!r} (parameters: {allowed})"
                )
            params[key] = fam.params[key].parse(value, source)
        rest = rest[end + 1 :].strip()
    cutoffs: tuple[int, ...] | None = None
    list_form = False
    if rest.startswith("@") and family in CUTOFF_PARAMS and not re.fullmatch(r"\s*\d+\s*", rest[1:]):
        key, implied = CUTOFF_PARAMS[family]  # ir_measures' IPrec@0.5: the "cutoff" is a parameter
        for name, value in ((key, rest[1:].strip()), *implied):
            if name in params:
                raise MeasureSyntaxError(f"measure {source!r}: parameter {name!r} given twice")
            params[name] = family_row(family).params[name].parse(value, source)
    elif rest.startswith("@"):
        cutoffs, list_form = _parse_cutoffs(rest[1:], source)
    elif rest.strip():
        raise MeasureSyntaxError(f"measure {source!r}: unexpected text {rest.strip()!r}")
    for key, value in preset.items():
        if key in params:
            raise MeasureSyntaxError(f"measure {source!r}: parameter {key!r} is set by the name")
        params[key] = value
    return measure(family, list(cutoffs) if list_form and cutoffs else (cutoffs[0] if cutoffs else None), **params)
