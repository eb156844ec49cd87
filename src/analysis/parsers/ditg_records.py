"""Run records from D-ITG summaries, whatever the summary was read from
(a binary log, ITGDec's text summary or its packet log): one record per flow
and one for the TOTAL, with the meaning of the numbers fixed by the kind of
log (:func:`log_kind`).
"""

from __future__ import annotations

from analysis.errors import ParseError
from analysis.parsers import units
from analysis.parsers.ditg_log import Endpoint
from analysis.parsers.ditg_stats import Stats, Summary
from analysis.parsers.records import RunRecord
from analysis.parsers.values import ip_version_of

TOOL = "ditg"
METERS = ("owdm", "rttm")


def log_kind(sender_log: bool, meter: str | None) -> str:
    """'rttm' (ITGSend's log in round-trip mode: delays are RTTs, gaps are
    round-trip losses), 'sender' (delays all zero, counts are packets sent)
    or 'receiver'."""
    if meter == "rttm":
        return "rttm"
    return "sender" if sender_log else "receiver"


AMBIGUOUS_METER = ("no meter hint, and delays that are all >= 0: read as a one-way receiver log (owd_*), but "
                   "ITGSend's own log of a round-trip run (-m rttm) looks exactly the same; say which with the hint "
                   "ditg.meter=owdm or ditg.meter=rttm (netrepro parse --hint, or parser_hints in the manifest)")


def meter_warnings(kind: str, meter: str | None, min_delay_s: float) -> list[str]:
    """What a reader must be told about a log read without a meter hint.
    Only a receiver-looking log is ambiguous: a sender log has no delays and
    a negative delay (clocks of two hosts) cannot be a round trip."""
    if meter is None and kind == "receiver" and min_delay_s >= 0:
        return [AMBIGUOUS_METER]
    return []


def records_from_summary(summary: Summary, meter: str | None = None) -> list[RunRecord]:
    """One record per flow and one for the TOTAL (flow="TOTAL")."""
    kind = log_kind(summary.sender_log, meter)
    shared = shared_flow_warnings([s.endpoints for s in summary.flows if s.endpoints is not None])
    records = [_record(s, kind, i, shared.get(i, [])) for i, s in enumerate(summary.flows)]
    records.append(_record(summary.total, kind, len(records), []))
    for rec in records:
        if summary.crosses_midnight:
            rec.warnings.append("the log crosses midnight: a day was added to the times after it "
                                "(ITGDec itself would report delays near -86400 s there)")
        if summary.error_lines:
            rec.warnings.append(f"{summary.error_lines} records with out-of-range times skipped, as ITGDec does")
    return records


def shared_flow_warnings(endpoints: list[Endpoint]) -> dict[int, list[str]]:
    """Flows that share a flow number (two ITGSend runs towards one ITGRecv
    both number from 1): each keeps its own record, and says so."""
    by_id: dict[int, list[int]] = {}
    for i, e in enumerate(endpoints):
        by_id.setdefault(e[0], []).append(i)
    out: dict[int, list[str]] = {}
    for fid, members in by_id.items():
        if len(members) > 1:
            names = ", ".join(_endpoint_text(endpoints[i]) for i in members)
            for i in members:
                out[i] = [f"flow number {fid} is shared by {len(members)} flows ({names}); "
                          f"this record is {_endpoint_text(endpoints[i])}"]
    return out


def _endpoint_text(e: Endpoint) -> str:
    return f"{e[1]}:{e[2]} -> {e[3]}:{e[4]}"


def _record(s: Stats, kind: str, index: int, warnings: list[str]) -> RunRecord:
    rec = RunRecord(tool=TOOL, flow=str(s.endpoints[0]) if s.endpoints else "TOTAL", duration_s=s.duration_s,
                    bytes=s.bytes, throughput_mbps=units.kbps_to_mbps(s.bitrate_kbps),
                    record_index=index, warnings=list(warnings))
    fill_metrics(rec, kind, s.packets, s.lost, s.duplicates,
                 (s.mean_delay_s, s.min_delay_s, s.max_delay_s, s.sd_delay_s, s.jitter_s))
    if s.endpoints:
        set_endpoints(rec, s.endpoints[1], s.endpoints[3])
    return rec


def set_endpoints(rec: RunRecord, src: str | None, dst: str | None) -> None:
    """Local is the side that wrote the log: the sender for a sender log."""
    local, remote = (src, dst) if rec.side == "sender" else (dst, src)
    rec.local_address, rec.remote_address = local, remote
    rec.ip_version = ip_version_of(local) or ip_version_of(remote)


def fill_metrics(rec: RunRecord, kind: str, packets: float, lost: float, dup: float | None,
                 delays: tuple[float, float, float, float, float]) -> None:
    """Counts and delays (seconds: mean, min, max, sd, jitter) of one block,
    by the kind of log (see :func:`log_kind`)."""
    rec.side = "receiver" if kind == "receiver" else "sender"
    if kind == "sender":
        rec.packets_sent = packets
        if lost:
            rec.warnings.append(f"the sender log has {lost:.0f} sequence gaps (packets missing from the "
                                "log itself, not from the network): not counted as loss")
        return
    rec.packets_received, rec.packets_lost, rec.packets_duplicate = packets, lost, dup
    rec.loss_pct = 100.0 * lost / (packets + lost) if packets + lost else None
    ms = [units.s_to_ms(v) for v in delays]
    if kind == "rttm":
        rec.rtt_ms, rec.rtt_min_ms, rec.rtt_max_ms, rec.rtt_sd_ms, rec.jitter_ms = ms
    else:
        rec.owd_ms, rec.owd_min_ms, rec.owd_max_ms, rec.owd_sd_ms, rec.jitter_ms = ms


def check_meter(meter: str | None, source: str) -> None:
    """A ``meter`` hint must be one D-ITG has (ITGSend -m owdm|rttm)."""
    if meter not in (None, *METERS):
        raise ParseError(source, None, f"unknown D-ITG meter {meter!r}: expected 'owdm' or 'rttm'")
