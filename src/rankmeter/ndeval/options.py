"""ndeval's command line, parsed as ndeval 4.5 parses it.

Options come before the two files, each on its own: ``-alpha A``, ``-beta B``
(both in [0, 1]), ``-M depth`` (> 0), ``-baseline RUN``, ``-riskAlpha A``
(>= 0), ``-traditional``, and single-dash letter groups of ``c`` and ``a``
(``-c``, ``-ca``). ``-help`` and ``-version`` print and stop. Anything else
is a usage error.
"""

from __future__ import annotations

from dataclasses import dataclass

from rankmeter.errors import RankmeterError

USAGE = "Usage: rankmeter ndeval [options] qrels run   (-help for full usage information)"


class UsageError(RankmeterError):
    """The command line is not one ndeval accepts."""


@dataclass
class NdevalOptions:
    """What the command line asked for."""

    qrels: str = ""
    run: str = ""
    alpha: float = 0.5
    beta: float = 0.5
    depth: int | None = None
    baseline: str | None = None
    risk_alpha: float = 0.0
    risk_alpha_text: str = "0"
    traditional: bool = False
    complete: bool = False
    show: str | None = None  # "help" or "version"


def _number(text: str, option: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{option} needs a number, got {text!r}") from None


def parse_options(argv: list[str]) -> NdevalOptions:
    """The options of ``argv`` (without the program name).

    >>> o = parse_options(["-alpha", "0.3", "-ca", "-M", "20", "qrels", "run"])
    >>> o.alpha, o.complete, o.depth, o.qrels
    (0.3, True, 20, 'qrels')
    >>> parse_options(["-version"]).show
    'version'
    """
    opts = NdevalOptions()
    args = list(argv)
    while len(args) != 2:
        head = args[0] if args else ""
        if head in ("-version", "-help"):
            opts.show = head[1:]
            return opts
        if len(args) >= 4 and head in ("-alpha", "-beta", "-M", "-baseline", "-riskAlpha"):
            value = args[1]
            if head == "-baseline":
                opts.baseline = value
            elif head == "-M":
                depth = _number(value, head)
                if depth != int(depth) or depth <= 0:
                    raise UsageError(f"-M needs a depth > 0, got {value!r}")
                opts.depth = int(depth)
            elif head == "-riskAlpha":
                opts.risk_alpha, opts.risk_alpha_text = _number(value, head), value
                if opts.risk_alpha < 0:
                    raise UsageError(f"-riskAlpha must be >= 0, got {value!r}")
            else:
                x = _number(value, head)
                if not 0.0 <= x <= 1.0:
                    raise UsageError(f"{head} must lie in [0, 1], got {value!r}")
                setattr(opts, head[1:], x)
            args = args[2:]
        elif len(args) >= 3 and head == "-traditional":
            opts.traditional = True
            args = args[1:]
        elif len(args) >= 3 and head.startswith("-") and len(head) > 1 and set(head[1:]) <= {"c", "a"}:
            opts.complete = opts.complete or "c" in head
            args = args[1:]
        else:
            raise UsageError(f"unexpected argument {head!r}" if args else "qrels and run files are required")
    opts.qrels, opts.run = args
    return opts
