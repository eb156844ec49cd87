"""Claims (YAML) -> verdicts: one engine for the campaigns' hypothesis files
and the rules the studies' printed claims are judged by (``rules``).

Reading a hypothesis file or its question needs only ``analysis.verdicts.spec``
(no scipy); importing this package loads the engine.
"""

from analysis.errors import HypothesisError
from analysis.verdicts.engine import (CELL_COLUMNS, HYPOTHESIS_COLUMNS, Verdicts, evaluate, evaluate_cells,
                                      evaluate_hypotheses)
from analysis.verdicts.registration import POST_HOC, Registration, registration_of
from analysis.verdicts.rules import VERDICTS, Verdict
from analysis.verdicts.spec import (Compare, Hypothesis, canon, check_against, load_hypotheses,
                                    load_question, parse_hypotheses)

__all__ = [
    "CELL_COLUMNS", "Compare", "HYPOTHESIS_COLUMNS", "Hypothesis", "HypothesisError", "POST_HOC", "Registration",
    "VERDICTS", "Verdict", "Verdicts", "canon", "check_against", "evaluate", "evaluate_cells",
    "evaluate_hypotheses", "load_hypotheses", "load_question", "parse_hypotheses", "registration_of",
]
