"""Orders printed without a number for the cell: said of several sizes, or read
through a common reference; and rows whose subject is doubtful are no evidence."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.reproduce.common_reference import References
from analysis.reproduce.lookup import KEY_COLUMNS, RowIndex, levels_named, others_named
from analysis.reproduce.stated_sizes import DIRECTION, direction_rows, load_doubtful, load_stated_sizes
from analysis.reproduce.verdicts import evaluate_claim

THESIS = "004_a7738a926cf50bd6"


def _row(row_id, os, value, compared_to, larger="subject", size=None, printed=None, statistic="pct_diff"):
    row = {c: None for c in KEY_COLUMNS}
    row.update(id=row_id, os=os, ip_version=4, size_bytes=size, metric="throughput_mbps", statistic=statistic,
               value=float(value), value_as_printed=printed or f"{value:g}", unit="%", compared_to=compared_to,
               larger_side=larger, snippet=f"sentence {row_id}", locator="section 1")
    return row


def _references(rows):
    frame = pd.DataFrame(rows)
    frame["size_bytes"] = frame["size_bytes"].astype("Int64")
    return References(RowIndex(frame))


A, B = {"os": "Windows 7", "ip_version": 4}, {"os": "Windows Server 2008", "ip_version": 4}


def test_two_sides_below_one_reference_are_ordered_by_how_far_below():
    refs = _references([_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
                        _row("r2", "Windows 7", 10, "Fedora", larger="compared"),
                        _row("r3", "Fedora", 1, "Ubuntu")])
    sign, rows = refs.order("throughput_mbps", A, B)
    assert sign == -1 and {r["id"] for r in rows} == {"r1", "r2"}
    assert refs.order("throughput_mbps", B, A)[0] == 1


def test_a_chain_through_the_reference_orders_opposite_signs():
    refs = _references([_row("r1", "Windows 7", 2, "Fedora"),  # Windows 7 above Fedora
                        _row("r2", "Fedora", 5, "Windows Server 2008"),  # Fedora above Server 2008
                        _row("r3", "Windows Server 2008", 1, "Ubuntu")])  # (names the level in the record)
    assert refs.order("throughput_mbps", A, B)[0] == 1


@pytest.mark.parametrize("rows", [
    # within the printed precision of both numbers: no order
    [_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
     _row("r2", "Windows 7", 2.4, "Fedora", larger="compared", printed="2")],
    # 1.8 and 1.7, each to a tenth: a gap of 0.1 is within their precision (and not 0.10000000000000009)
    [_row("r1", "Windows Server 2008", 1.7, "Fedora", larger="compared"),
     _row("r2", "Windows 7", 1.8, "Fedora", larger="compared")],
    # one sign, read different ways round: the percentages' bases differ
    [_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
     _row("r2", "Fedora", 10, "Windows 7")],
    # two references ordering the pair differently
    [_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
     _row("r2", "Windows 7", 10, "Fedora", larger="compared"),
     _row("r3", "Windows Server 2008", 1, "Ubuntu"),
     _row("r4", "Windows 7", 5, "Ubuntu")],
    # a difference whose larger side the text does not state
    [_row("r1", "Windows Server 2008", 2, "Fedora", larger=""),
     _row("r2", "Windows 7", 10, "Fedora", larger="compared")],
    # a percentage and a difference in Mbps are not set side by side
    [_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
     _row("r2", "Windows 7", 10, "Fedora", larger="compared", statistic="diff")],
])
def test_no_order_where_the_printed_numbers_do_not_give_one(rows):
    for row in rows:
        if row["statistic"] == "diff":
            row["unit"] = "Mbps"
    assert _references(rows).order("throughput_mbps", A, B) == (None, [])


def test_a_reference_listed_with_others_is_each_of_them():
    lowest = {"os": "Windows Server 2003", "ip_version": 4}
    rows = [_row("r1", "Windows Server 2003", 8, "Windows 7 and Fedora", larger="compared"),
            _row("r2", "Windows Server 2008", 1.1, "Windows 7", larger="compared"),
            _row("r3", "Fedora", 1, "Ubuntu"), _row("r4", "Windows 7", 1, "Ubuntu")]  # (levels of the record)
    sign, used = _references(rows).order("throughput_mbps", lowest, B)
    assert sign == -1 and {r["id"] for r in used} == {"r1", "r2"}


@pytest.mark.parametrize("compared_to", ["Windows 7 and Fedora (probably; not stated)", "Windows 7 and Fedora, IPv4 and IPv6"])
def test_a_qualified_list_of_references_is_none_of_them(compared_to):
    rows = [_row("r1", "Windows Server 2003", 8, compared_to, larger="compared"),
            _row("r2", "Windows Server 2008", 1.1, "Windows 7", larger="compared"),
            _row("r3", "Fedora", 1, "Ubuntu"), _row("r4", "Windows 7", 1, "Ubuntu")]
    assert _references(rows).order("throughput_mbps", {"os": "Windows Server 2003", "ip_version": 4}, B) == (None, [])


def test_a_level_is_named_without_its_first_word_where_that_is_unambiguous():
    oses = ["Windows Server 2008", "Windows Server 2003", "Windows 7", "Fedora"]
    assert levels_named("Windows Server 2008, Server 2003, Fedora", "os", oses) == \
        {"Windows Server 2008", "Windows Server 2003", "Fedora"}
    assert levels_named("Windows 7", "os", oses) == {"Windows 7"}  # "7" alone names nothing
    apps = ["VoIP G.711.1", "VoIP G.711.2", "VoIP", "games Quake3", "games"]
    assert levels_named("Fedora, IPv6, VoIP G.711.1 and G.711.2", "application", apps) == {"VoIP G.711.1", "VoIP G.711.2"}
    assert levels_named("Quake3", "application", apps) == {"games Quake3"}
    assert levels_named("Server 2003", "transport", ["TCP", "UDP"]) == set()  # only OSes and applications


@pytest.mark.parametrize("compared_to", ["other five OSes, IPv4, UDP", "any of the other operating systems, IPv6, DNS",
                                         "the rest of the operating systems, IPv6, games Quake3", "any other OS, IPv6"])
def test_the_other_oses_are_each_other_os_of_the_study(compared_to):
    oses = ["Windows Server 2003", "Windows 7", "Fedora", ""]
    row = {"os": "Windows Server 2003", "compared_to": compared_to}
    assert others_named(row, "os", oses) == {"Windows 7", "Fedora"}
    assert others_named(row, "ip_version", [4, 6]) == set()


@pytest.mark.parametrize("compared_to", ["not stated (read as the other OSes)", "Fedora", "the other CODECs, IPv4"])
def test_only_a_compared_to_that_starts_with_the_others_names_them(compared_to):
    assert others_named({"os": "Ubuntu", "compared_to": compared_to}, "os", ["Ubuntu", "Fedora"]) == set()


def test_a_difference_with_the_other_oses_orders_each_pair_through_them():
    rows = [_row("r1", "Windows Server 2003", 8, "other five OSes, IPv4", larger="compared"),
            _row("r2", "Windows 7", 1, "Ubuntu"), _row("r3", "Windows Server 2008", 1, "Ubuntu")]
    index = RowIndex(pd.DataFrame(rows).astype({"size_bytes": "Int64"}))
    value, used = index.printed_difference("throughput_mbps", "os", {"os": "Windows Server 2003", "ip_version": 4},
                                           A, ("pct_diff",))
    assert value == -8 and used["id"] == "r1"


def test_a_restatement_orders_nothing():
    refs = _references([_row("r1", "Windows Server 2008", 2, "Fedora", larger="compared"),
                        _row("r2", "Windows 7", 10, "Fedora", larger="compared")])
    assert refs.order("throughput_mbps", A, B, independent=lambda r: r["id"] != "r2") == (None, [])


def test_an_order_said_of_several_sizes_is_copied_to_each_other_size_sign_only():
    rows = pd.DataFrame([_row("004-0269", "Fedora", 17.6, "Fedora, IPv4, TCP, 7140 bytes", size=7140)])
    rows["size_bytes"] = rows["size_bytes"].astype("Int64")
    stated = pd.DataFrame([{"row": "004-0269", "sizes": "2455;7140;8037", "words": "from 2455 to 8037 Bytes"}])
    copies = direction_rows(rows, stated)
    assert copies["size_bytes"].tolist() == [2455, 8037]
    assert copies["compared_to"].tolist() == ["Fedora, IPv4, TCP, 2455 bytes", "Fedora, IPv4, TCP, 8037 bytes"]
    assert set(copies["statistic"]) == {DIRECTION} and copies["id"].tolist() == ["004-0269@2455", "004-0269@8037"]


def test_every_stated_size_reading_is_verbatim_and_measured(record_of):
    stated = load_stated_sizes()
    assert len(stated) > 200
    for study in sorted({row.split("-")[0] for row in stated["row"]}):
        record = record_of(next(s for s in _studies() if s.startswith(study)))
        rows = record.rows.set_index("id")
        measured = set(record.rows["size_bytes"].dropna().astype(int))
        for row_id, sizes, words in stated[stated["row"].str.startswith(study)].itertuples(index=False):
            assert words and words in rows.loc[row_id, "snippet"], row_id
            assert set(map(int, filter(None, sizes.split(";")))) <= measured, row_id
            if not sizes:  # one size the sentence does not name: only of a number printed for no size
                assert pd.isna(rows.loc[row_id, "size_bytes"]), row_id


def _studies():
    return [p.stem for p in sorted((load_stated_sizes.__globals__["published_dir"]()).glob("[0-9][0-9][0-9]_*.csv"))]


@pytest.fixture(scope="module")
def verdict(record_of):
    """claim id -> ``evaluate_claim`` of that claim of the thesis, on one record
    read for this module (its indexes built once for all the tests here)."""
    record = record_of(THESIS)

    def evaluate(claim_id):
        return evaluate_claim(next(c for c in record.claims.claims if c.id == claim_id), record)

    return evaluate


def test_a_range_stated_against_the_claim_refutes_it_at_the_sizes_it_names(verdict):
    row, cells = verdict("C2153")  # TCP over UDP at 1518-5266; Fedora UDP above TCP "from 2455 to 8037"
    assert row["verdict"] == "disagrees"
    fedora = {c["cell"]: c for c in cells if c["cell"].startswith("Fedora")}
    assert fedora["Fedora, 3392"]["verdict"] == "disagrees"
    assert "said of several sizes" in fedora["Fedora, 3392"]["diff_source"]


def test_an_order_through_a_common_reference_decides_a_cell_with_no_number(verdict):
    row, cells = verdict("C1089")  # OpenSUSE IPv6 2% above Ubuntu IPv4, which is 5% above Ubuntu IPv6
    quake = next(c for c in cells if c["cell"] == "games Quake3")
    assert quake["verdict"] == "agrees" and "common reference" in quake["diff_source"]


def test_a_doubtfully_labelled_row_is_no_evidence(verdict):
    doubtful = load_doubtful()
    assert (doubtful["reason"].str.len() > 20).all()
    row, cells = verdict("C1043")  # a number of the second "Linux Ubuntu" bullet decided it before
    assert not any(r in doubtful["row"].tolist() for c in cells for r in c["rows"])
    assert "common reference" in cells[0]["diff_source"]  # Figure 5-3-28's, both against Windows 7 on CSa


def test_a_number_tied_to_one_unnamed_size_shows_the_order_there_only(verdict):
    row, cells = verdict("C2146")  # "but still 1% more than Microsoft Windows 7 in some particular frame size"
    assert row["verdict"] == "agrees where printed"
    unnamed = [c for c in cells if "one size the text does not name" in c["cell"]]
    assert len(unnamed) == 1 and unnamed[0]["verdict"] == "agrees" and unnamed[0]["rows"] == ["004-0237"]


def test_the_other_half_of_a_sentence_the_layout_split_restates_the_claim(verdict):
    row, cells = verdict("C718")  # "... however, 8%" [other lines] "less than Fedora and only 2% less than ..."
    assert row["verdict"] == "restated"
