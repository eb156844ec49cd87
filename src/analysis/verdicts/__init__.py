"""Claims (YAML) -> verdicts: one engine for the campaigns' hypothesis files
and the rules the studies' printed claims are judged by (``rules``).

The engine (and with it scipy and statsmodels, two seconds to import) loads
on first use of one of its names, so reading a hypothesis file or its
question — as every campaign notebook's banner does — stays light.
"""

from typing import Any

from analysis.errors import HypothesisError
from analysis.verdicts.rules import VERDICTS
from analysis.verdicts.spec import (Compare, Hypothesis, canon, check_against, load_hypotheses,
                                    load_question, parse_hypotheses)

_ENGINE = ("CELL_COLUMNS", "HYPOTHESIS_COLUMNS", "Verdicts", "evaluate", "evaluate_cells", "evaluate_hypotheses")


def __getattr__(name: str) -> Any:
    if name in _ENGINE:
        from analysis.verdicts import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CELL_COLUMNS", "Compare", "HYPOTHESIS_COLUMNS", "Hypothesis", "HypothesisError", "VERDICTS",
    "Verdicts", "canon", "check_against", "evaluate", "evaluate_cells", "evaluate_hypotheses",
    "load_hypotheses", "load_question", "parse_hypotheses",
]
