"""Scope is checked, never assumed (issue 23): over every study, every number a
cell is judged on was printed for that cell — its qualifiers are the cell's,
and what it is compared with is the cell's other level, nothing outside it."""

import pytest

from analysis.reproduce.claims import studies
from analysis.reproduce.lookup import scope_conflicts
from analysis.reproduce.verdicts import evaluate_claim


@pytest.mark.slow  # seconds of CPU: out of `make test-fast`, in `make test`
@pytest.mark.parametrize("study", studies())
def test_no_cell_is_judged_on_a_number_printed_outside_its_scope(study, record_of):
    record = record_of(study)  # read once per run, shared with the other files that read it
    rows = record.rows.set_index("id", drop=False)
    directions = record.directions.rows.set_index("id", drop=False)  # orders said of several sizes, per size
    judged, outside = 0, []
    for claim in record.claims.claims:
        if not claim.testable or claim.compare is None:
            continue
        factor = claim.compare.factor
        for cell in evaluate_claim(claim, record)[1]:
            source = str(cell.get("diff_source", ""))
            for row_id in cell.get("rows", []):
                judged += 1
                row = rows.loc[row_id].to_dict()
                if source.startswith("printed order through a common reference"):
                    # each number of the chain has one of the cell's two sides at an end
                    sides = [{**cell["_cell"], factor: level} for level in claim.compare.levels]
                    why = [] if any(record.references.touches(row, side) for side in sides) else [
                        "neither of its ends is a side of the cell"]
                else:
                    if source.startswith("printed order, said of several sizes") \
                            and row["size_bytes"] != cell["_cell"].get("size_bytes"):
                        row = directions.loc[f"{row_id}@{cell['_cell'].get('size_bytes')}"].to_dict()
                    why = scope_conflicts(row, cell["_cell"], factor, record.index.levels)
                if why:
                    outside.append(f"{claim.id} at {cell['cell']}: row {row_id}: {'; '.join(why)}")
    assert judged > 0
    assert not outside, "\n".join(outside[:20])
