"""The studies' own findings as data (data/claims/<study stem>.yaml).

A claims file holds, for one study: every verdict the study states as a
finding (``claims``), every number it derives from other printed numbers
(``derived``), the places where it contradicts itself (``audit``) and the
figures it draws (``figures``).  Claims reuse the hypothesis registry's
vocabulary (metric, scope, compare, direction, per, holds) so that the same
claim can later be run on our own campaigns; what is new is what only a
published claim has: the verbatim quote, the study's own verdict, and which
printed numbers are its evidence.  Published claims are evaluated from summary
statistics by :mod:`analysis.reproduce`, never from runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Union

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from analysis.verdicts import Compare
from analysis.config import claims_dir
from analysis.errors import ClaimsError
from analysis.yamlfiles import read_yaml

Level = Union[int, float, str, None]
Direction = Literal["greater", "less", "different", "equivalent"]
StudyVerdict = Literal["asserted", "true", "false", "partly true"]
AUDIT_KINDS = (
    "claim contradicted by the study's own numbers", "statements contradict each other",
    "range contradicts claim", "unit cannot be right", "percentage does not follow",
    "duplicated table", "duplicated numbers", "maximum reported as typical", "size not tested", "chapters disagree", "wrong count",
    "wrong reason", "result not shown",
)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Evidence(_Strict):
    """One printed number used as a cell's difference, read as ``sign`` × value = a − b.

    ``where`` selects exactly one row of the published record by column value
    (``snippet_contains`` matches inside the snippet).  Used where the record's
    ``compared_to`` is free text that the automatic lookup cannot read.
    """

    cell: dict[str, Level] = {}
    where: dict[str, Level]
    sign: Literal[1, -1]


class Claim(_Strict):
    """A finding as the study states it.  ``direction`` reads: first level <direction> second."""

    id: str
    quote: str
    source: str
    study_verdict: StudyVerdict = "asserted"
    metric: str
    scope: dict[str, Level | list[Level]] = {}
    compare: Compare | None = None   # a cause may name no comparison
    direction: Direction | None = None
    margin: float | None = None
    per: list[str] = []
    holds: Literal["all", "any", "most"] = "all"
    # a claim that names no size: how it speaks of the sizes (None: overall, "most"; "any" for
    # "there were differences"; "peak" for "the highest throughput": the printed peaks decide it;
    # "lowest" for "the lowest RTT is on Fedora": the printed minima decide it)
    over_sizes: Literal["all", "any", "most", "peak", "lowest"] | None = None
    over: str = ""
    exclude: list[dict[str, Level]] = []
    evidence: list[Evidence] = []
    note: str = ""
    kind: Literal["comparison", "trend", "exception", "equivalence", "cause"] = "comparison"
    rows: list[str] = []  # ids of every published number that bears on the claim (for or against)
    # rows printed in the claim's own sentence where the text's layout splits it (a two-column page
    # put other lines between its halves): restatements of the claim, like its quote
    sentence_rows: list[str] = []
    testable: bool = True
    reason: str = ""      # why it is not testable, or what a reader must know
    # the two sides differ in a factor the scope leaves open ("Ubuntu IPv4 against Fedora IPv6"):
    # a number of either side's cell alone is out of its scope: its ``evidence`` or a difference printed across that factor decides it
    cross_cell: bool = False

    @property
    def compared(self) -> Compare:
        """The comparison of a testable claim (a cause may have none)."""
        if self.compare is None:
            raise ClaimsError(f"claim {self.id}: no comparison (testable: false)")
        return self.compare

    @property
    def sense(self) -> Direction:
        """The direction of a testable claim."""
        if self.direction is None:
            raise ClaimsError(f"claim {self.id}: no direction (testable: false)")
        return self.direction

    @model_validator(mode="after")
    def _two_levels(self):
        if self.compare is None or self.direction is None:
            if self.testable:
                raise ValueError("a testable claim needs 'compare' and 'direction' (else testable: false and a reason)")
            return self
        if self.direction != "different" and len(self.compare.labels()) != 2:
            raise ValueError(f"direction '{self.direction}' needs exactly two levels")
        if self.compare.groups is not None:
            raise ValueError("published claims compare single levels (cells), not groups")
        if self.over_sizes is not None and ("size_bytes" in self.per or "size_bytes" in self.scope):
            raise ValueError("over_sizes is for a claim that names no size; this one names its sizes (per/scope)")
        return self


class Operand(_Strict):
    """A printed number a derived number is computed from: a record row or a literal."""

    where: dict[str, Level] | None = None
    value: float | None = None

    @model_validator(mode="after")
    def _one(self):
        if (self.where is None) == (self.value is None):
            raise ValueError("give exactly one of 'where' or 'value'")
        return self


class Derived(_Strict):
    """A number the text derives from other printed numbers (a percentage, a difference)."""

    id: str
    quote: str
    source: str
    printed: str
    a: Operand
    b: Operand
    formulas: list[Literal["a - b", "(a - b) / a", "(a - b) / b"]] = [
        "a - b", "(a - b) / a", "(a - b) / b"]
    note: str = ""

    @model_validator(mode="after")
    def _number(self):
        try:
            float(self.printed)
        except ValueError:
            raise ValueError(f"printed {self.printed!r} is not a number") from None
        return self


class AuditItem(_Strict):
    """A place where the study's numbers or statements contradict each other or themselves,
    found by reading (what no automatic cross-check can see: prose against prose)."""

    id: str
    kind: str
    quotes: list[str]
    source: str
    recomputation: str
    severity: Literal["major", "minor", "plausibility"] = "major"

    @model_validator(mode="after")
    def _known_kind(self):
        if self.kind not in AUDIT_KINDS:
            raise ValueError(f"unknown audit kind {self.kind!r}; expected one of {AUDIT_KINDS}")
        return self


class FigureSpec(_Strict):
    """A figure of the study: its metric and scope, one series per combination of ``series``."""

    id: str
    caption: str
    metric: str
    scope: dict[str, Level | list[Level]] = {}
    series: list[str]
    x: str = "size_bytes"
    mirror: dict | None = None


class ClaimsFile(_Strict):
    study: str
    claims: list[Claim]
    derived: list[Derived] = []
    audit: list[AuditItem] = []
    figures: list[FigureSpec] = []

    @model_validator(mode="after")
    def _unique_ids(self):
        for name in ("claims", "derived", "audit", "figures"):
            ids = [item.id for item in getattr(self, name)]
            dupes = sorted({i for i in ids if ids.count(i) > 1})
            if dupes:
                raise ValueError(f"duplicate {name} id(s): {', '.join(dupes)}")
        return self


def load_claims(study: str, directory: str | Path | None = None) -> ClaimsFile:
    """Read and validate one study's claims file (by study stem)."""
    path = Path(directory or claims_dir()) / f"{study}.yaml"
    return parse_claims(read_yaml(path, ClaimsError), str(path))


def parse_claims(doc: dict, origin: str = "<claims>") -> ClaimsFile:
    """Validate a parsed claims document, naming the file and the failing keys."""
    try:
        return ClaimsFile(**doc)
    except (ValidationError, TypeError) as err:
        raise ClaimsError(f"{origin}: {err}") from None


def studies(directory: str | Path | None = None) -> list[str]:
    """Study stems that have a claims file."""
    return sorted(p.stem for p in Path(directory or claims_dir()).glob("[0-9][0-9][0-9]_*.yaml"))
