"""Claims (YAML) -> verdicts: one engine for the campaigns' hypothesis files
and the rules the studies' printed claims are judged by (``rules``).

The engine (and with it scipy and statsmodels, two seconds to import) loads
on first use of one of its names, so reading a hypothesis file, registering
it before a collection, or starting the command line stays light. Type
checkers see the engine's real signatures (the TYPE_CHECKING imports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from analysis.errors import HypothesisError
from analysis.verdicts.registration import POST_HOC, Registration, registration_of
from analysis.verdicts.rules import VERDICTS, Verdict
from analysis.verdicts.spec import (Compare, Hypothesis, canon, check_against, load_hypotheses,
                                    load_question, parse_hypotheses)

if TYPE_CHECKING:
    from analysis.verdicts.engine import (CELL_COLUMNS, HYPOTHESIS_COLUMNS, Verdicts, evaluate, evaluate_cells,
                                          evaluate_hypotheses, sequential_paths)

_ENGINE = ("CELL_COLUMNS", "HYPOTHESIS_COLUMNS", "Verdicts", "evaluate", "evaluate_cells", "evaluate_hypotheses",
           "sequential_paths")


def __getattr__(name: str) -> Any:
    if name in _ENGINE:
        from analysis.verdicts import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CELL_COLUMNS", "Compare", "HYPOTHESIS_COLUMNS", "Hypothesis", "HypothesisError", "POST_HOC", "Registration",
    "VERDICTS", "Verdict", "Verdicts", "canon", "check_against", "evaluate", "evaluate_cells",
    "evaluate_hypotheses", "load_hypotheses", "load_question", "parse_hypotheses", "registration_of",
    "sequential_paths",
]
