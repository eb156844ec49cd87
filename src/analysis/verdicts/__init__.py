"""Claims (YAML) -> verdicts: one engine for the campaigns' hypothesis files
and the rules the studies' printed claims are judged by (``rules``)."""

from analysis.errors import HypothesisError
from analysis.verdicts.engine import (CELL_COLUMNS, HYPOTHESIS_COLUMNS, Verdicts, evaluate,
                                      evaluate_cells, evaluate_hypotheses)
from analysis.verdicts.rules import VERDICTS
from analysis.verdicts.spec import (Compare, Hypothesis, canon, check_against, load_hypotheses,
                                    parse_hypotheses)

__all__ = [
    "CELL_COLUMNS", "Compare", "HYPOTHESIS_COLUMNS", "Hypothesis", "HypothesisError", "VERDICTS",
    "Verdicts", "canon", "check_against", "evaluate", "evaluate_cells", "evaluate_hypotheses",
    "load_hypotheses", "parse_hypotheses",
]
