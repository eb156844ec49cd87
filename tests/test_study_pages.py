"""Study pages and the front page: what a reader sees, checked on a real study."""

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.report import front_page, study_page
from analysis.report.show import readable, readable_table
from analysis.reproduce.published import load_designs

STUDY = "002_6c0e8c5c95705e2f"  # the smallest study (39 claims)


@pytest.mark.parametrize("value, shown", [
    (None, "—"), (np.nan, "—"), (pd.NA, "—"), ("", "—"), (True, "yes"), (np.False_, "no"),
    ([128, 1408], "128, 1408"), (2.9229e-14, "2.9 × 10⁻¹⁴"), (0.012345, "0.01235"), (12345.678, "12,346"),
    (np.int64(1234567), "1,234,567"), (1.0, "1"), ("IPv4", "IPv4")])
def test_a_cell_reads_as_words(value, shown):
    assert readable(value) == shown


def test_a_readable_table_has_no_raw_cell_and_an_anchor_per_row():
    frame = pd.DataFrame({"id": ["C1", "C2"], "p": [2.9e-14, np.nan], "ok": [True, False], "sizes": [[1, 2], None]})
    shown = readable_table(frame, row_ids="id", options={"paging": False})
    page = shown._repr_html_()
    assert "<tr id='C1'>" in page and "<tr id='C2'>" in page
    assert "netrepro-interactive" in page and "data-options='{&quot;paging&quot;: false}'" in page
    cells = re.findall(r"<td[^>]*>(.*?)</td>", page)
    assert cells == ["C1", "2.9 × 10⁻¹⁴", "yes", "1, 2", "C2", "—", "no", "—"]
    assert "nan" not in repr(shown) and "None" not in repr(shown) and "True" not in repr(shown)


@pytest.fixture(scope="module")
def reproduction(reproduced):
    return reproduced(STUDY)


def test_the_verdict_table_holds_every_verdict_with_its_anchor(reproduction):
    table = study_page.verdicts(reproduction)
    page = table._repr_html_()
    ids = list(reproduction.verdicts["id"])
    assert table.row_ids == tuple(ids)
    assert [m for m in re.findall(r"<tr id='([^']+)'>", page)] == ids
    assert len(table.frame) == len(ids) and table.options is not None
    assert not table.frame.isin(["nan", "None", "True", "False", ""]).any().any()
    filtered = [c["targets"] for c in table.options["columnDefs"]][0]
    assert [table.frame.columns[i] for i in filtered] == list(study_page.FILTERED)


def test_on_paper_the_verdicts_table_keeps_its_chosen_columns_and_a_long_table_its_first_rows():
    """The print form: the verdicts table shows the columns of ON_PAPER (their widths
    filling the page) and hides the others; a long table is marked to print its first
    rows, with a note for paper only (hidden on screen) naming the CSV that holds every
    row; a short one prints whole, with no note. What nbval compares (the text) is unchanged."""
    style = study_page.PRINT_STYLE
    hidden = {int(n) for n in re.findall(r"verdicts-table tr>:nth-child\((\d+)\)", style)}
    shown = [c for i, c in enumerate(study_page.VERDICT_COLUMNS, 1) if i not in hidden]
    assert shown == list(study_page.ON_PAPER) and sum(study_page.ON_PAPER.values()) == 100
    rows = study_page.PRINTED_ROWS
    long = pd.DataFrame({"id": [f"C{i:03d}" for i in range(1, 2 * rows + 2)]})
    printed = study_page.big(long, "cells")
    assert f"class='dataframe netrepro-table {study_page.LONG_CLASS}'" in printed.html
    assert (f"<p class='netrepro-print-note' hidden>On paper the first {rows} of these {2 * rows + 1} rows; every "
            "row is in <a href='tables/cells.csv'>tables/cells.csv</a>.</p>") in printed.html
    assert repr(printed) == repr(readable_table(long))
    assert f"tr:nth-child(n+{rows + 1}){{display:none}}" in style
    short = study_page.big(long.head(rows), "cells")._repr_html_()
    assert study_page.LONG_CLASS not in short and "netrepro-print-note" not in short


def test_the_heading_opens_with_the_title_and_links_only_to_what_the_page_has(reproduction):
    heading = study_page.heading(reproduction)
    title = load_designs()[STUDY]["title"]
    assert f"<h1 id='top'>{title}</h1>" in heading.html.replace("&#x27;", "'")
    assert heading.text.startswith(title)
    targets = set(re.findall(r"href='#([^']+)'", heading.html))
    pages = {a for a, _ in study_page.SECTIONS} | set(reproduction.verdicts["id"])
    assert targets and targets <= pages, targets - pages
    counts = study_page.verdict_counts(reproduction)
    assert sum(counts.values()) == len(reproduction.verdicts)
    assert study_page.counts_sentence(counts) in heading.html


def test_a_headline_contradiction_is_a_sentence_with_its_link(reproduction):
    v = reproduction.verdicts.iloc[[0]].assign(verdict="disagrees", note="printed values disagree at 1408",
                                              holds_at="0 of 1", headline=True)
    sentence = study_page.contradiction_sentence(next(v.itertuples()))
    row = v.iloc[0]
    assert sentence.startswith(f"<a href='#{row['id']}'>{row['id']}</a>")
    assert "<strong>disagrees</strong> — printed values disagree at 1408; holds at 0 of 1 cells." in sentence


def _report(folder: Path, about: dict, figures=("Figure_2.png",), verdicts=("agrees", "untestable")):
    (folder / "figures").mkdir(parents=True)
    (folder / "tables").mkdir()
    (folder / "report.html").write_text("<html></html>")
    for f in figures:
        (folder / "figures" / f).write_bytes(b"\x89PNG\r\n\x1a\n")
    pd.DataFrame({"id": [f"C{i}" for i in range(len(verdicts))], "verdict": list(verdicts)}).to_csv(
        folder / "tables" / "verdicts.csv", index=False)
    (folder / "about.json").write_text(json.dumps(about))


def test_the_front_page_has_the_overview_as_header_and_titles_not_folder_names(tmp_path):
    _report(tmp_path / "papers" / "00_overview", {"title": "The five studies at a glance", "found": "All found."},
            figures=(), verdicts=())
    _report(tmp_path / "papers" / STUDY, {"title": "UDP over IPv6", "asked": "39 claims", "found": "26 agree.",
                                          "figures": {"Figure_2": "UDP throughput"}},
            figures=("Figure_2.png", "mirror_Figure_2.png"))
    _report(tmp_path / "lan", {"title": "A LAN", "asked": "Is IPv4 faster?"},
            figures=("netperf_throughput_mbps_vs_packet_size_bytes.png",))
    index = front_page.write_index(*front_page.found_reports(tmp_path), tmp_path).read_text()
    header = index[index.index("<header>"):index.index("</header>")]
    assert "All found." in header and "papers/00_overview/report.html" in header
    assert "id='00_overview'" not in index  # not a card
    assert ">UDP over IPv6</a></h3>" in index and ">A LAN</a></h3>" in index
    assert "<strong>Claimed.</strong> 39 claims" in index and "<strong>Asked.</strong> Is IPv4 faster?" in index
    assert "<figcaption>Figure 2: UDP throughput</figcaption>" in index
    assert "<figcaption>Figure 2, our data: UDP throughput</figcaption>" in index
    assert "<figcaption>netperf throughput (mbit/s) vs packet size (bytes)</figcaption>" in index
    assert "1 agrees, 1 untestable" in index  # a campaign's verdicts from its table


def test_the_os_section_sets_the_studys_os_claims_beside_our_kernel_contrast(tmp_path, monkeypatch, reproduced):
    """With a campaign of two kernels as uml-seeds (here the real uml-kernels, copied), every OS claim group
    of study 000 (TCP throughput among them) is shown beside our contrast's shape; without it, the section
    says how to collect it."""
    import shutil

    from analysis.reproduce.os_contrast import OS_CAMPAIGN

    reproduction = reproduced("000_4e5320b6fe1e825c")
    raw = tmp_path / "raw"
    raw.mkdir()
    monkeypatch.setenv("NETREPRO_RAW", str(raw))
    monkeypatch.setenv("NETREPRO_PROCESSED", str(tmp_path / "processed"))  # not the session's: its uml-seeds is the real one
    absent = study_page.os_contrast(reproduction, tmp_path / "out")
    assert "plans/uml-seeds.yaml" in absent.text and not (tmp_path / "out" / "tables").exists()
    shutil.copytree(Path(__file__).resolve().parents[1] / "data/raw/uml-kernels", raw / OS_CAMPAIGN)
    shown = study_page.os_contrast(reproduction, tmp_path / "out")
    table = pd.read_csv(tmp_path / "out" / "tables" / "os_contrast.csv")
    os_claims = [c for c in reproduction.record.claims.claims if c.compare is not None and c.compare.factor == "os"
                 and c.direction not in (None, "equivalent")]
    assert table.drop_duplicates(["metric", "transport", "ip_version"])["study_claims"].sum() >= len(os_claims)
    ours = table[table["our_os_pair"].notna()]  # the groups our campaign measures (uml-kernels: TCP throughput)
    assert len(ours) and set(ours["our_os_pair"]) == {"6.1.176 vs 5.10.46"}
    assert set(ours["metric"]) == {"throughput_mbps"} and ours["our_shape"].str.contains("of 3 sizes|every size").all()
    assert f"({len(table)})" in shown.text and "id='os-contrast'" in shown.html
