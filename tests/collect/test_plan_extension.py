"""A plan extended by new cells only: earlier runs keep their order, the added
ones follow in the extended plan's seeded order; anything else is refused."""

from __future__ import annotations

import pytest

from analysis.collect.campaign import Collector
from analysis.collect.extension import check_extension, extended_schedule, load_extensions
from analysis.collect.plan import Plan, PlanError, schedule


def make_plan(sizes: list[int], **extra) -> Plan:
    raw = {"name": "ext", "title": "extension", "seed": 7, "runs_per_cell": 3, "duration_s": 1,
           "testbeds": {"lo": {"kind": "loopback"}},
           "blocks": [{"name": "np", "tool": "netperf", "factors": {"ip_version": [4, 6], "packet_size_bytes": sizes}}]}
    return Plan.model_validate(raw | extra)


OLD = make_plan([64, 1408])
NEW = make_plan([64, 256, 1408, 8952], description="two sizes added")


def test_added_runs_follow_the_earlier_ones_in_the_extended_plans_seeded_order():
    runs = extended_schedule([OLD, NEW])
    first = schedule(OLD)
    assert runs[: len(first)] == first  # the earlier runs: same place, same order number
    added = runs[len(first):]
    assert len(added) == 3 * 2 * 2 and {r.levels["packet_size_bytes"] for r in added} == {256, 8952}
    assert [r.order for r in added] == list(range(len(first), len(runs)))
    in_new_plan = [r.path for r in schedule(NEW) if r.levels["packet_size_bytes"] in (256, 8952)]
    assert [r.path for r in added] == in_new_plan  # the extended plan's own shuffle, restricted to what it adds
    assert [r.path for r in check_extension(OLD, NEW)] == in_new_plan
    assert extended_schedule([OLD, NEW]) == runs  # reproducible from the plans alone


@pytest.mark.parametrize("changed, why", [
    (make_plan([64, 256, 1408], seed=8), "the plan changes seed"),
    (make_plan([64, 256, 1408], duration_s=2), "the plan changes duration_s"),
    (make_plan([64, 256]), "drops or changes run np/"),
    (make_plan([64, 1408], blocks=[{"name": "np", "tool": "netperf", "duration_s": 2,
                                     "factors": {"ip_version": [4, 6], "packet_size_bytes": [64, 1408, 256]}}]),
     "changes the duration of block np"),
])
def test_a_change_to_what_was_planned_is_not_an_extension(changed, why):
    with pytest.raises(PlanError, match=why):
        check_extension(OLD, changed)


def started(out, plan: Plan) -> None:
    """The folder as a first collector session leaves it before its first run: the plan copy."""
    collector = Collector(plan, out)
    collector.prepare()
    assert (out / "collect" / "plan.yaml").is_file()


def test_resume_with_an_extended_plan_records_the_extension_once(tmp_path):
    out = tmp_path / "c"
    started(out, OLD)
    pending = Collector(NEW, out, resume=True).prepare()
    assert [r.path for r in pending] == [r.path for r in extended_schedule([OLD, NEW])]
    (record,) = load_extensions(out / "collect")
    assert record["runs_before"] == 12 and record["runs_added"] == 12 and record["orders"] == "12-23"
    assert record["runs_added_by_block"] == {"np": 12}
    assert Plan.model_validate(record["plan_before"]) == OLD
    again = Collector(NEW, out, resume=True)  # the same extended plan again: nothing new to record
    assert [r.path for r in again.prepare()] == [r.path for r in pending]
    assert len(load_extensions(out / "collect")) == 1 and again.runs == extended_schedule([OLD, NEW])


def test_resume_refuses_a_plan_that_changes_more_than_cells_or_adds_nothing(tmp_path):
    out = tmp_path / "c"
    started(out, OLD)
    with pytest.raises(PlanError, match=r"the plan differs from the one it was started with .*the plan changes seed"):
        Collector(make_plan([64, 256, 1408], seed=8), out, resume=True).prepare()
    with pytest.raises(PlanError, match="adds no runs"):
        Collector(make_plan([64, 1408], notes="only words"), out, resume=True).prepare()
    assert load_extensions(out / "collect") == []
