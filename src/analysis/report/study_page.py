"""A study's reproduction page, read like a short paper: the study's title,
what it claimed and what the reproduction found (counts by verdict, each
headline contradiction in a sentence with a link to its row), a table of
contents, every verdict in one table a reader can search, sort and filter
(each row an anchor: ``#C017``), the figures under captions (each an
anchor), and the evidence behind it folded.

Each function returns what a notebook cell shows: HTML for the page and
JupyterLab, the same content as plain text for nbval. No cell reads "nan",
"None" or a Python repr (:func:`analysis.report.show.readable`).
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from markdown_it import MarkdownIt

from analysis.artefacts import save_table
from analysis.figures.labels import name as metric_name
from analysis.report.show import Table, readable, readable_table
from analysis.verdicts.rules import CLAIM_ORDER

if TYPE_CHECKING:
    from analysis.reproduce.study import Reproduction

CONTRADICTING = ("contradicted", "disagrees", "disagrees where printed")
SUMMARY_FILE = "about.json"  # what the index says about this study (report/front_page.py)
# The page's sections in order: (anchor, heading). Verdict ids (C001) and figure
# ids (Figure_2) never take these forms.
SECTIONS = (("claimed", "What the study claimed"), ("found", "What the reproduction found"),
            ("verdicts", "Every verdict"), ("figures", "Figures"), ("changes", "What changed since the earlier reading"),
            ("audit", "Consistency audit"), ("evidence", "Evidence of each judged cell"),
            ("tables", "Tables rebuilt from the published record"), ("derived", "Derived numbers recomputed"),
            ("mdd", "Minimum detectable difference"), ("own-data", "Where our own data agrees or not"),
            ("os-contrast", "The study's OS claims beside our own OS contrast"), ("design", "Design as printed"))
HEADINGS = dict(SECTIONS)
PAGE_STYLE = ("<style>.study-head .meta{color:#555}.study-head li{margin:.3em 0}"
              "details.netrepro-section>summary{cursor:pointer}"
              "details.netrepro-section>summary>h2{display:inline}"
              "table.verdicts-table td details>summary{cursor:pointer}"
              "tr:target,p.caption:target{background:#fff3bf}"
              ".dt-container:has(table.verdicts-table) .dt-layout-table>.dt-layout-cell"
              "{max-height:80vh;overflow:auto;overflow-anchor:none}"
              "table.verdicts-table thead th{position:sticky;top:0;background:#fff;z-index:1}"
              "table.verdicts-table tr{scroll-margin-top:5em}"
              "table.verdicts-table th:nth-child(3){width:22em}table.verdicts-table th:nth-child(7){width:11em}"
              "table.verdicts-table th:nth-child(13),table.verdicts-table th:nth-child(14){width:14em}"
              "p.caption{font-weight:normal;margin:1.2em 0 .3em}</style>")


@dataclass(frozen=True)
class Block:
    """A piece of the page: its HTML, and the same as plain text (what nbval compares)."""

    html: str
    text: str

    def _repr_html_(self) -> str:
        return self.html

    def __repr__(self) -> str:
        return self.text


def start(study: str, out: str | Path) -> Reproduction:
    """The reproduction of ``study`` (stored, or reproduced now: reproduce.summaries);
    its tables written under ``out`` and the index's summary of it (``out/about.json``)."""
    from analysis.reproduce.summaries import stored_reproduction

    r = stored_reproduction(study)  # its summary stored too: the overview reads it instead of reproducing the study
    r.write(out)
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / SUMMARY_FILE).write_text(json.dumps(index_summary(r), indent=1) + "\n")
    return r


def _e(text) -> str:
    return html.escape(str(text))


def _link(verdict_id: str) -> str:
    return f"<a href='#{_e(verdict_id)}'>{_e(verdict_id)}</a>"


def section_of(source: str) -> str:
    """'004_….txt, section 7.0' -> 'section 7.0' (the study file is the page's)."""
    return source.split(", ", 1)[1] if ", " in source else source


def verdict_counts(r: Reproduction) -> dict[str, int]:
    """Claims per verdict, in the vocabulary's order."""
    counts = r.verdicts["verdict"].value_counts()
    order = [str(v) for v in CLAIM_ORDER]
    return {v: int(counts[v]) for v in [*order, *sorted(set(counts.index) - set(order))] if v in counts}


def counts_sentence(counts: dict[str, int]) -> str:
    return ", ".join(f"{n:,} {v}" for v, n in counts.items())


def contradictions(r: Reproduction, headline: bool) -> pd.DataFrame:
    """Claims the printed numbers go against (verdict contradicted or disagrees),
    or whose verdict the second reader refuted towards such a verdict; the
    headline claims or the others."""
    v = r.verdicts
    dissent = v["second_reading"].str.match(r"refuted: should be (contradicted|disagrees)")
    against = v["verdict"].isin(CONTRADICTING) | dissent
    return v[against & (v["headline"] == headline)]


def contradiction_sentence(row) -> str:
    """One claim against the evidence, in a sentence, with a link to its row."""
    why = "; ".join(t for t in (row.note, f"holds at {row.holds_at} cells") if t)
    if row.verdict in CONTRADICTING:
        found = f"<strong>{_e(row.verdict)}</strong> — {_e(why)}"
    else:
        found = (f"judged <strong>{_e(row.verdict)}</strong>, but the second reading refuted that: "
                 f"{_e(row.second_reading.split(' — ')[0].removeprefix('refuted: '))}")
    return f"{_link(row.id)} ({_e(section_of(row.source))}): “{_e(row.quote)}” — {found}."


def index_summary(r: Reproduction) -> dict:
    """What the front page says about this study, in a sentence each."""
    c = r.counts()
    against = contradictions(r, headline=True)
    asked = (f"{c['claims']:,} claims read from its text ({int(r.verdicts['headline'].sum()):,} headline), "
             f"{c['numbers']:,} printed numbers")
    found = (f"{c['tested']:,} claims tested from printed means, SDs and runs, {c['descriptive']:,} checked by sign, "
             f"{c['untestable']:,} untestable; {counts_sentence(verdict_counts(r))}; "
             + (f"{len(against)} headline claim{'s' if len(against) != 1 else ''} against the printed numbers"
                if len(against) else "no headline claim against the printed numbers")
             + f"; {c['inconsistencies']:,} audit findings ({c['audit_major']} major).")
    from analysis.reproduce.figures import figure_file_stem

    return {"title": title_of(r), "study": r.study, "asked": asked, "found": found,
            "verdicts": verdict_counts(r), "headline_against": list(against["id"]),
            "figures": {figure_file_stem(spec): spec.caption for spec in r.record.claims.figures}}


def title_of(r: Reproduction) -> str:
    return str(r.record.design.get("title") or r.study)


def heading(r: Reproduction) -> Block:
    """The top of the page: title, where and when it appeared, what the study
    claimed, what the reproduction found, the headline contradictions (each
    linked to its row) and the table of contents."""
    design = r.record.design
    c = r.counts()
    headline = r.verdicts[r.verdicts["headline"]]
    sections = design.get("headline_sections") or []
    year = design.get("year") or f"not known ({design.get('year_note', 'not printed')})"
    tool = next((d["value"] for d in design.get("design", []) if d["field"] == "tool"), None)
    meta = (f"Study text <code>{_e(r.study)}.txt</code> (<code>data/papers/</code>) · year: {_e(year)} · "
            "venue: not printed in the text extraction" + (f" · tool: {_e(readable(tool))}" if tool else ""))
    claimed = (f"The study prints {c['numbers']:,} numbers about its own results ({c['tables']} tables, "
               f"{c['figures']} figures). {c['claims']:,} claims were read from its text, "
               f"{len(headline):,} of them headline claims (from {_e(', '.join(sections) or 'no section named')}).")
    headline_list = "".join(f"<li>{_link(row.id)} “{_e(row.quote)}” — {_e(row.verdict)}</li>"
                            for row in headline.itertuples())
    found = (f"{c['tested']:,} claims could be tested from printed means, SDs and runs (Welch, two-sided, post hoc), "
             f"{c['descriptive']:,} only checked by the sign of printed numbers, {c['untestable']:,} not at all. "
             f"Verdicts: {_e(counts_sentence(verdict_counts(r)))} (<a href='#verdicts'>the table</a> filters by "
             f"verdict, section and metric).")
    against = contradictions(r, headline=True)
    if len(against):
        against_html = (f"<p><strong>Headline claims against the printed numbers ({len(against)}):</strong></p><ul>"
                        + "".join(f"<li>{contradiction_sentence(row)}</li>" for row in against.itertuples())
                        + "</ul>")
    else:
        against_html = "<p>No headline claim goes against the study's own printed numbers.</p>"
    others = contradictions(r, headline=False)
    if len(others):
        against_html += (f"<details><summary>{len(others)} other claim{'s' if len(others) != 1 else ''} against "
                         "the printed numbers</summary><ul>"
                         + "".join(f"<li>{contradiction_sentence(row)}</li>" for row in others.itertuples())
                         + "</ul></details>")
    audit = (f"The consistency audit has {c['inconsistencies']:,} findings ({c['audit_major']} major, "
             f"{c['audit_minor']} minor, {c['audit_plausibility']} plausibility; <a href='#audit'>audit</a>); "
             f"{c['verdicts_changed']} verdicts changed since the earlier reading (<a href='#changes'>why</a>).")
    reading = MarkdownIt().renderInline(r.reading_text())
    contents = "".join(f"<li><a href='#{a}'>{_e(h)}</a></li>" for a, h in SECTIONS)
    page = (f"{PAGE_STYLE}{PRINT_STYLE}{PRINT_SCRIPT}<header class='study-head'><h1 id='top'>{_e(title_of(r))}</h1>"
            f"<p class='meta'>{meta}</p>"
            f"<h2 id='claimed'>{HEADINGS['claimed']}</h2><p>{claimed}</p>"
            f"<details><summary>The {len(headline):,} headline claims and their verdicts</summary>"
            f"<ul>{headline_list}</ul></details>"
            f"<h2 id='found'>{HEADINGS['found']}</h2><p>{found}</p>{against_html}<p>{audit}</p><p>{reading}</p>"
            f"<nav id='contents'><h2>Contents</h2><ol>{contents}</ol></nav></header>")
    text = (f"{title_of(r)}\n{r.study}.txt, year: {year}\n{c['claims']} claims ({len(headline)} headline); "
            f"{counts_sentence(verdict_counts(r))}\nheadline claims against the printed numbers: "
            f"{', '.join(against['id']) or 'none'}\n{r.reading_text()}")
    return Block(page, text)


VERDICT_COLUMNS = ("id", "headline", "statement", "section", "metric", "class", "claim", "verdict", "judged",
                   "holds at", "p (two-sided, Holm)", "p (one-sided)", "why, or what is missing", "second reading")
FILTERED = ("headline", "section", "metric", "class", "verdict")  # the columns the page offers as filters
# On paper each verdict is one row of these columns (their shares of the width): what it
# claims, its verdict and what decides it. The rest is on the page and in verdicts.csv.
ON_PAPER = {"id": 6.5, "claim": 27, "verdict": 9.5, "judged": 7.5, "holds at": 7.5, "p (two-sided, Holm)": 6.5,
            "why, or what is missing": 35.5}
PRINTED_ROWS = 10  # a long table on paper: its first rows, and a note naming the CSV that holds them all
LONG_CLASS = "netrepro-long"
LONG_TABLE = f"table.netrepro-table.{LONG_CLASS}"  # a long table, to the print style and the print script


def _print_style() -> str:
    """The study page on paper (print.css opens the folded parts). The verdicts table
    let out of its scroll box, in the columns of ON_PAPER at fixed widths (laid out
    from their content, its 14 columns took study 004 a thousand pages and minutes to
    print), the cells judged and a long reason's rest left folded ("…"). A long table:
    its first PRINTED_ROWS rows, words broken where they must be (its long words ran
    off the page), but not its first column (the row's id)."""
    v = "table.netrepro-table.verdicts-table"
    nth = {c: f"nth-child({i})" for i, c in enumerate(VERDICT_COLUMNS, 1)}
    hidden = ",".join(f"{v} tr>:{nth[c]}" for c in VERDICT_COLUMNS if c not in ON_PAPER)
    widths = "".join(f"{v} th:{nth[c]}{{width:{w}%}}" for c, w in ON_PAPER.items())
    unbroken = ",".join(f"{v} td:{nth[c]}" for c in ("id", "judged", "holds at"))
    long = LONG_TABLE
    return ("<style>@media print{.dt-container:has(table.verdicts-table) .dt-layout-table>.dt-layout-cell"
            f"{{max-height:none;overflow:visible}}{v}{{table-layout:fixed!important;width:100%!important}}"
            f"{hidden}{{display:none}}{widths}{unbroken}{{white-space:nowrap}}{v} thead th{{position:static}}"
            f"{v} td details::details-content{{content-visibility:hidden}}{v} td details>summary::after{{content:' …'}}"
            f"{long}>tbody>tr:nth-child(n+{PRINTED_ROWS + 1}){{display:none}}{long} :is(td,th){{overflow-wrap:anywhere}}"
            f"{long} :is(td,th):first-child{{white-space:nowrap}}}}</style>")


PRINT_STYLE = _print_style()
# While the page prints, the rows past PRINTED_ROWS of each long table DataTables has not
# arranged (a folded one: interactive.py starts it when a reader opens it) leave the page,
# and come back after: hidden by the print style, study 004's 8,500 such rows still took
# Chromium some 9 of the 24 s it spent printing the page.
PRINT_SCRIPT = (
    "<script>(() => { const aside = [];"
    "addEventListener('beforeprint', () => { for (const table of document.querySelectorAll("
    f"'{LONG_TABLE}')) {{ if (table.closest('.dt-container')) continue;"
    f" const rest = Array.from(table.tBodies[0].rows).slice({PRINTED_ROWS});"
    " const kept = document.createDocumentFragment(); rest.forEach(row => kept.appendChild(row));"
    " aside.push([table.tBodies[0], kept]); } });"
    "addEventListener('afterprint', () => { for (const [body, kept] of aside.splice(0)) body.appendChild(kept); });"
    "})();</script>")


def _folded(text: str, *splits: str) -> str:
    """Long text folded after its first clause (e.g. 'refuted: should be agrees — why …'),
    at the first of ``splits`` it has."""
    split = next((s for s in splits if s in text), None)
    if not text or split is None:
        return _e(readable(text))
    first, rest = text.split(split, 1)
    return f"<details><summary>{_e(first)}</summary>{_e(rest)}</details>"


def _judged(row) -> str:
    judged, at = str(row.judged), str(row.judged_at or "")
    return f"<details><summary>{_e(judged)}</summary>at {_e(at)}</details>" if at else _e(readable(judged))


def verdict_frame(r: Reproduction) -> pd.DataFrame:
    """Every verdict as the page shows it, in words (no NaN, no True, no list)."""
    v = r.verdicts
    why = [("; ".join(t for t in (m, n) if t)) for m, n in zip(v["missing"], v["note"])]
    return pd.DataFrame({
        "id": v["id"], "headline": v["headline"].map(readable), "statement": v["quote"],
        "section": v["source"].map(section_of), "metric": v["metric"].map(metric_name), "class": v["class"],
        "claim": v["claim"], "verdict": v["verdict"], "judged": v["judged"], "holds at": v["holds_at"],
        "p (two-sided, Holm)": v["p_adj"], "p (one-sided)": v["p_adj_one_sided"],
        "why, or what is missing": why, "second reading": v["second_reading"]}).map(readable)


def verdict_options(frame: pd.DataFrame) -> dict:
    """DataTables: every row in the page (an anchor each), searchable, sortable
    by any column, and a list of values to tick under the heading of each
    FILTERED column (ColumnControl). SearchPanes and DataTables' own scroll box
    took 10-30 s to start on the 2,431 rows of study 004 in Chromium; this takes
    under a second (the box is CSS: PAGE_STYLE)."""
    columns = list(frame.columns)
    return {"paging": False, "order": [], "autoWidth": False,
            "layout": {"topStart": "info", "topEnd": "search", "bottomStart": None, "bottomEnd": None},
            "ordering": {"indicators": False, "handler": False}, "columnControl": ["order"],
            "columnDefs": [{"targets": [columns.index(c) for c in FILTERED],
                            "columnControl": ["order", ["searchList"]]}]}


def verdicts(r: Reproduction) -> Table:
    """Every claim's verdict, one row each with its id as anchor."""
    frame = verdict_frame(r)
    v = r.verdicts.reset_index(drop=True)
    cells = frame.map(_e)
    cells["id"] = [_link(i) for i in v["id"]]
    cells["judged"] = [_judged(row) for row in v.itertuples()]
    cells["why, or what is missing"] = [_folded(t, "; ", ": ") if len(t) > 160 else _e(t)
                                        for t in frame["why, or what is missing"]]
    cells["second reading"] = [_folded(t, " — ", ": ") for t in v["second_reading"]]
    return Table(frame, css_class="verdicts-table", cells_html=cells, row_ids=tuple(v["id"]),
                 options=verdict_options(frame), numeric=("p (two-sided, Holm)", "p (one-sided)"))


VERDICTS_INTRO = (
    "Every claim of the study, one row each (link to one as <code>#C017</code>). <em>tested</em>: Welch t from "
    "printed means (or difference), SDs and runs, two-sided, Holm across the claim's cells — every claim is read "
    "from the text after its authors saw their data (post hoc), so a direction is not a pre-registered one-sided "
    "hypothesis; the one-sided p is beside it, and a verdict it would have changed says so. <em>descriptive</em>: "
    "only the sign of independent printed numbers is checked (<em>restated</em> when the only number is the "
    "claim's own, <em>tie</em> when the values are equal). <em>untestable</em>: what is missing says why. "
    "<em>judged</em>: at how many of the claim's cells independent numbers are printed (open it for which); "
    "<em>holds at</em>: at how many it holds. Search all columns, sort by a column, or tick values in the list "
    "under the heading of headline, section, metric, class or verdict.")


def section_heading(anchor: str, intro: str = "") -> Block:
    """A section's heading (its anchor is the table of contents') and what it shows."""
    return Block(f"<h2 id='{anchor}'>{_e(HEADINGS[anchor])}</h2>" + (f"<p>{intro}</p>" if intro else ""),
                 HEADINGS[anchor])


VERDICTS_ON_PAPER = (
    f"On paper each verdict is one row: {', '.join(ON_PAPER)} (its first clause; “…”: more on the page). The "
    "statement as the study words it, its section, metric and class, the one-sided p, the whole reason, the cells "
    "judged and the second reading are on the page and in <a href='tables/verdicts.csv'>tables/verdicts.csv</a>.")


def print_note(text: str) -> str:
    """A paragraph only for paper: hidden on screen, shown by the page's print stylesheet (print.css)."""
    return f"<p class='netrepro-print-note' hidden>{text}</p>"


def verdicts_heading() -> Block:
    heading = section_heading("verdicts", VERDICTS_INTRO)
    return Block(heading.html + print_note(VERDICTS_ON_PAPER), heading.text)


def folded(anchor: str, parts: list, intro: str = "", count: int | None = None) -> Block:
    """A section that starts closed under its heading (``count`` rows in it)."""
    title = HEADINGS[anchor] + (f" ({count:,})" if count is not None else "")
    inner = "".join(p._repr_html_() if hasattr(p, "_repr_html_") else f"<p>{p}</p>" for p in parts)
    return Block(f"<details class='netrepro-section' id='{anchor}'><summary><h2>{_e(title)}</h2></summary>"
                 + (f"<p>{intro}</p>" if intro else "") + inner + "</details>",
                 "\n".join([title, *(repr(p) if hasattr(p, "_repr_html_") else str(p) for p in parts)]))


PAGED = {"paging": True, "pageLength": 25, "order": [], "autoWidth": False}


def big(frame: pd.DataFrame, csv: str, **kwargs) -> Table | Block:
    """A long table, readable and searchable, 25 rows a page; on paper its first
    PRINTED_ROWS rows and a note naming ``tables/<csv>.csv``, which holds every row
    (a table of thousands of rows printed whole took Chromium a thousand pages)."""
    table = readable_table(frame, options=PAGED if len(frame) > 25 else None, **kwargs)
    if len(frame) <= PRINTED_ROWS:
        return table
    table = replace(table, css_class=f"{table.css_class} {LONG_CLASS}".strip())
    note = print_note(f"On paper the first {PRINTED_ROWS} of these {len(frame):,} rows; every row is in "
                      f"<a href='tables/{csv}.csv'>tables/{csv}.csv</a>.")
    return Block(table._repr_html_() + note, repr(table))


def changes(r: Reproduction) -> Block:
    changed = r.changes()
    changed = changed[changed["changed"]].drop(columns="changed")
    return folded("changes", [big(changed, "changes")], "Each earlier claim (before the double-entry reading) matched by its "
                  "quote to the new claims; where the verdict changed, the rule that now decides it.", len(changed))


def audit(r: Reproduction) -> Block:
    intro = ("Every rule run on the whole record (cross-check), derived numbers (recomputation), claims against the "
             "study's own numbers (evaluation), and prose against prose found by reading; each finding with a "
             "severity: major (changes a conclusion), minor, plausibility. " + MarkdownIt().renderInline(r.reading_text()))
    return folded("audit", [readable_table(r.audit_summary()), big(r.audit, "audit")], intro, len(r.audit))


def evidence(r: Reproduction) -> Block:
    table = r.evidence_table()
    return folded("evidence", [big(table, "cells")], "The printed numbers of each judged cell, the test (two-sided, post hoc), "
                  "both p-values and the verdict, with why where they differ.", len(table))


def tables(r: Reproduction) -> Block:
    if not r.tables:
        return folded("tables", ["The study prints no tables of its results."], count=0)
    parts: list = []
    for locator, table in r.tables.items():
        parts += [f"<strong>{_e(locator)}</strong>", readable_table(table)]
    return folded("tables", parts, "Every cell exactly as printed.", len(r.tables))


def derived(r: Reproduction) -> Block:
    return folded("derived", [big(r.derived, "derived")], "Each number the text derives from other printed numbers, with the "
                  "formula that reproduces it at its printed precision (reproduced), or the nearest formula "
                  "(mismatch).", len(r.derived))


def mdd(r: Reproduction) -> Block:
    return folded("mdd", [MarkdownIt().renderInline(r.mdd_text()), big(r.mdd, "mdd")], "δ at 80 % power, α = 0.05, "
                  "two-sided, n runs per group, SDs pooled: could the study have seen the differences it claims?",
                  len(r.mdd))


OWN_DATA_COLUMNS = ["id", "statement", "study_verdict", "published_verdict", "dataset", "our_test", "our_verdict",
                    "our_summary", "adaptation"]
OWN_DATA_INTRO = (
    "Each claim re-tested on our own real mirror dataset with the hypothesis registry, beside the study's verdict as "
    "printed (study_verdict) and as our evaluation of its published numbers found (published_verdict). A claim is "
    "comparable when what it compares and every factor it is specific to exist in our dataset; a claim comparing, "
    "or about a single level of, an OS, a security mode or a testbed is not comparable, with the factor named.")


def own_data(r: Reproduction, out: str | Path) -> Block:
    from analysis.reproduce import own_data_counts

    own = r.own_data()
    save_table(own, out, "own_data")
    counts = ", ".join(f"{k}: {v}" for k, v in own_data_counts(own).items())
    return folded("own-data", [_e(counts), big(own, "own_data", columns=OWN_DATA_COLUMNS)], OWN_DATA_INTRO, len(own))


OS_CONTRAST_INTRO = (
    "The study's claims that one OS beats another, grouped by metric, transport and IP version, beside the shape of "
    "our own OS contrast of the same metric across message sizes: two Linux kernels (6.1 and 5.10, User-mode Linux "
    "guests on one host) in the campaign uml-seeds. The OSes differ, so no verdict carries over; what can agree is "
    "the shape: the study's claims_at_every_size say one OS is ahead at every size, ours_at_every_size whether one "
    "of our kernels is (Welch per size, Holm across sizes).")


def os_contrast(r: Reproduction, out: str | Path) -> Block:
    table = r.os_claims_beside_ours()
    if table is None:
        return folded("os-contrast", [_e("Our campaign with an OS factor (data/raw/uml-seeds) is not here: collect it "
                                         "with plans/uml-seeds.yaml (docs/collecting.md).")], OS_CONTRAST_INTRO)
    save_table(table, out, "os_contrast")
    return folded("os-contrast", [big(table, "os_contrast")], OS_CONTRAST_INTRO, len(table))


def design(r: Reproduction) -> Block:
    return folded("design", [readable_table(r.design())], "Every item of the design as the study prints it, with the "
                  "snippet it was read from.")


def figures(r: Reproduction, out: str | Path, width: int = 480) -> None:
    """Every figure of the study, published points only, each under a caption
    that is its anchor (``#Figure_5-3-43``), and our campaign's version beside
    it when there is one. The figure goes out as image/png (nbval does not
    compare pixels)."""
    from IPython.display import Image, display

    from analysis.reproduce.figures import draw_figures

    display(section_heading("figures", "Published points only, with the published SD as error bar where the study "
                                       "prints one; no lines between points. Below each, the same design from our "
                                       "own real campaign when it exists."))
    drawn = draw_figures(r.record, out)
    if drawn.empty:
        display(Block("<p>The study has no figures of its results.</p>", "no figures"))
    for row in drawn.itertuples():
        anchor = row.figure.replace(" ", "_").replace(".", "")
        caption = (f"{row.figure} — {row.caption}: {row.published_points} of {row.points_in_figure} points "
                   "published" + ("" if row.published_png else ", so nothing to draw"))
        display(Block(f"<p class='caption' id='{_e(anchor)}'><a href='#{_e(anchor)}'><strong>{_e(row.figure)}"
                      f"</strong></a> — {_e(caption.split(' — ', 1)[1])}</p>", caption))
        if row.published_png:
            display(Image(filename=row.published_png, width=width))
        if row.mirror:
            display(Block(f"<p class='caption' id='mirror_{_e(anchor)}'>Our data, {_e(row.figure)} design: "
                          f"{_e(row.mirror)}</p>", f"mirror: {row.mirror}"))
        if row.mirror_png:
            display(Image(filename=row.mirror_png, width=width))



OVERVIEW_TITLE = "The five studies at a glance"


def overview(stems: list[str], out: str | Path) -> tuple[Block, Table, Table]:
    """The overview page: a sentence on all the studies (also the index's header,
    ``out/about.json``), one row per study under its title (linked to its page),
    and the audit's findings per study, rule and severity."""
    from analysis.reproduce.summaries import overview_tables

    table, audits = overview_tables(stems)
    save_table(table, out, "overview")
    save_table(audits, out, "audit_by_rule")
    total = table.iloc[-1]
    verdicts = {c.removeprefix("verdict_"): int(total[c]) for c in table.columns if c.startswith("verdict_")}
    found = (f"{len(stems)} network-performance studies reproduced from the numbers they print: "
             f"{int(total['claims']):,} claims read from their text, {int(total['tested']):,} tested from printed "
             f"means, SDs and runs, {int(total['descriptive']):,} checked by sign, {int(total['untestable']):,} "
             f"untestable; {counts_sentence({v: n for v, n in verdicts.items() if n})}; "
             f"{int(total['inconsistencies']):,} audit findings ({int(total['audit_major']):,} major).")
    Path(out).mkdir(parents=True, exist_ok=True)
    (Path(out) / SUMMARY_FILE).write_text(json.dumps({"title": OVERVIEW_TITLE, "found": found}, indent=1) + "\n")
    shown = table.drop(columns="study").rename(columns={"title": "study"})
    shown["study"] = [t or "all five" for t in shown["study"]]
    summary = readable_table(shown)
    cells = summary.frame.map(_e)
    cells["study"] = [f"<a href='../{_e(s)}/report.html'>{_e(t)}</a>" if s in stems else _e(t)
                      for s, t in zip(table["study"], shown["study"])]
    by_study = Table(summary.frame, cells_html=cells, numeric=summary.numeric)
    titles = dict(zip(table["study"], shown["study"]))
    audits = audits.assign(study=audits["study"].map(titles))
    return (Block(f"{PAGE_STYLE}<header class='study-head'><h1>{OVERVIEW_TITLE}</h1><p>{_e(found)}</p></header>",
                  f"{OVERVIEW_TITLE}\n{found}"), by_study, readable_table(audits))
