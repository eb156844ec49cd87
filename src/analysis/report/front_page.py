"""reports/index.html as a front page: the five studies' overview as its
header, then one card per study and per campaign saying in a sentence what
was asked and what was found, under its title (not its folder's name), with
its headline figure large enough to read and a gallery whose figures carry
captions. Relative links only, so the folder can move.

What a card says comes from the ``about.json`` each build writes beside its
page (a study's notebook, :func:`write_campaign_about` for a campaign), so the
index is rebuilt from what is on disk without running anything.
"""

from __future__ import annotations

import csv
import html
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from analysis.figures.labels import LABELS
from analysis.verdicts.rules import CLAIM_ORDER

ABOUT = "about.json"
OVERVIEW = "00_overview"  # the studies' overview: the page's header, not a card
if TYPE_CHECKING:
    from analysis.ingest.manifest import CampaignInfo

VERDICT_ORDER = tuple(str(v) for v in CLAIM_ORDER)


@dataclass(frozen=True)
class CampaignReport:
    campaign: str
    html: Path
    figures: list[Path]
    tables: list[Path]
    synthetic: bool


def about(folder: Path) -> dict:
    """The ``about.json`` of a report folder ({} when its build wrote none)."""
    path = folder / ABOUT
    return json.loads(path.read_text()) if path.is_file() else {}


def study_title(out_dir: Path, name: str) -> str:
    """A study page's title: the study's own (from its about.json), else its name."""
    return about(out_dir).get("title") or f"netrepro reproduction: {name}"


def write_campaign_about(campaign_dir: Path, out_dir: Path, hypotheses_dir: Path, info: CampaignInfo) -> None:
    """What the index says a campaign asked: its manifest's title (``info``, the
    manifest's campaign section) and its hypothesis file's question (or that it has none)."""
    from analysis.verdicts.spec import load_question

    hypotheses = hypotheses_dir / f"{campaign_dir.name}.yaml"
    asked = (load_question(hypotheses) if hypotheses.is_file() else "") or (
        f"Do the claims of {hypotheses.name} hold on these runs?" if hypotheses.is_file()
        else "No question: the campaign has no hypothesis file, so its page describes the runs.")
    facts = {"title": info.title or campaign_dir.name, "asked": asked, "testbed": info.testbed or ""}
    (out_dir / ABOUT).write_text(json.dumps(facts, indent=1) + "\n")


def found_reports(out_root: Path) -> tuple[list[CampaignReport], list[CampaignReport]]:
    """Every campaign and study (the overview included) that has a report under ``out_root``."""
    def report(folder: Path) -> CampaignReport:
        return CampaignReport(folder.name, folder / "report.html", sorted((folder / "figures").glob("*.png")),
                              sorted((folder / "tables").glob("*.csv")),
                              (folder / "SYNTHETIC").is_file())
    campaigns = [report(p.parent) for p in sorted(out_root.glob("*/report.html")) if p.parent.name != "papers"]
    studies = [report(p.parent) for p in sorted((out_root / "papers").glob("*/report.html"))]
    return campaigns, studies


def verdict_counts(r: CampaignReport) -> dict[str, int]:
    """Claims per verdict from the report's verdict table (empty when it has none)."""
    table = next((t for t in r.tables if t.stem == "verdicts"), None)
    if table is None:
        return {}
    with table.open(newline="", encoding="utf-8") as fh:
        verdicts = [row.get("verdict", "") for row in csv.DictReader(fh)]
    counts = {v: verdicts.count(v) for v in VERDICT_ORDER if v in verdicts}
    return counts | {v: verdicts.count(v) for v in sorted(set(verdicts) - set(counts))}


def figure_caption(figure: Path, captions: dict[str, str]) -> str:
    """What a figure shows, in words: a study figure's printed caption, else its
    file name with metric and factor names spelled out."""
    stem = figure.stem
    mirror = stem.startswith("mirror_")
    printed = captions.get(stem.removeprefix("mirror_"))
    if printed:
        number = stem.removeprefix("mirror_").replace("_", " ")
        return f"{number}{', our data' if mirror else ''}: {printed}"
    words = stem.replace("_vs_", " vs ")
    for column, label in sorted(LABELS.items(), key=lambda kv: -len(kv[0])):
        words = words.replace(column, label.lower())
    return words.replace("_", " ")


def _headline_figure(r: CampaignReport) -> Path | None:
    return next((f for f in r.figures if f.stem.startswith("claim_")),
                next((f for f in r.figures if not f.stem.startswith("mirror_")), r.figures[0] if r.figures else None))


def _card(r: CampaignReport, out_root: Path, facts: dict, kind: str) -> list[str]:
    rel = lambda p: html.escape(p.relative_to(out_root).as_posix())  # noqa: E731
    e = html.escape
    label = " <strong>(SYNTHETIC DATA)</strong>" if r.synthetic else ""
    counts = verdict_counts(r)
    summary = ", ".join(f"{n:,} {v}" for v, n in counts.items()) or "no verdict table"
    captions = facts.get("figures", {})
    title = facts.get("title") or r.campaign
    parts = [f"<section class='card' id='{e(r.campaign)}'>",
             f"<h3><a href='{rel(r.html)}'>{e(title)}</a>{label}</h3>",
             f"<p class='name'>{kind} <code>{e(r.campaign)}</code></p>"]
    headline = _headline_figure(r)
    if headline:
        parts.append(f"<figure class='headline-figure'><a href='{rel(r.html)}'><img class='thumb' src='{rel(headline)}' "
                     f"alt='headline figure of {e(title)}'></a><figcaption>{e(figure_caption(headline, captions))}"
                     "</figcaption></figure>")
    if facts.get("asked"):
        parts.append(f"<p><strong>{'Claimed' if kind == 'study' else 'Asked'}.</strong> {e(facts['asked'])}</p>")
    if facts.get("found"):
        parts.append(f"<p class='verdicts'><strong>Found.</strong> {e(facts['found'])}</p>")
    else:
        parts.append(f"<p class='verdicts'><strong>Found.</strong> {e(summary)}</p>")
    if r.tables:
        parts.append("<p>Tables: " + ", ".join(f"<a href='{rel(t)}'>{e(t.stem)}</a>" for t in r.tables) + "</p>")
    if r.figures:
        parts.append(f"<details><summary>{len(r.figures)} figures</summary><div class='gallery'>")
        parts += [f"<figure><a href='{rel(f)}'><img src='{rel(f)}' loading='lazy' alt='{e(figure_caption(f, captions))}'>"
                  f"</a><figcaption>{e(figure_caption(f, captions))}</figcaption></figure>" for f in r.figures]
        parts.append("</div></details>")
    parts.append("</section>")
    return parts


def _header(overview: CampaignReport | None, studies: list[CampaignReport], out_root: Path) -> list[str]:
    """The overview of the studies as the page's header."""
    parts = ["<header><h1>netrepro: network-performance studies reproduced, and our own measurements</h1>"]
    facts = about(overview.html.parent) if overview else {}
    if facts.get("found"):
        parts.append(f"<p class='lead'>{html.escape(facts['found'])}</p>")
    elif studies:
        parts.append(f"<p class='lead'>{len(studies)} studies reproduced from the numbers they print.</p>")
    if overview:
        parts.append(f"<p><a href='{html.escape(overview.html.relative_to(out_root).as_posix())}'>The studies at a "
                     "glance</a>: claims, verdicts and audit findings of every study side by side.</p>")
    sections = ([("studies", "The studies reproduced")] if studies else []) + [("campaigns", "Our campaigns")]
    parts.append("<nav>" + " · ".join(f"<a href='#{a}'>{h}</a>" for a, h in sections) + "</nav></header>")
    return parts


STYLE = ("body{font-family:sans-serif;max-width:72em;margin:2em auto;padding:0 1em;line-height:1.45}"
         "header .lead{font-size:1.15em}"
         ".card{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;margin:1em 0;overflow:hidden}"
         ".card .name{color:#666;margin-top:-.6em}"
         "figure.headline-figure{float:right;width:min(480px,45%);margin:0 0 .5em 1em}img.thumb{width:100%}"
         "figcaption{font-size:.9em;color:#444}"
         ".gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:1em}"
         ".gallery figure{margin:0}.gallery img{width:100%;border:1px solid #eee}")


def write_index(reports: list[CampaignReport], papers: list[CampaignReport], out_root: Path) -> Path:
    """reports/index.html: the overview as header, one card per study and campaign."""
    overview = next((p for p in papers if p.campaign == OVERVIEW), None)
    studies = [p for p in papers if p.campaign != OVERVIEW]
    parts = ["<!doctype html><html lang='en'><head><meta charset='utf-8'><title>netrepro reports</title>",
             "<meta name='viewport' content='width=device-width, initial-scale=1'>",
             f"<style>{STYLE}</style></head><body>", *_header(overview, studies, out_root)]
    if studies:
        parts.append("<h2 id='studies'>The studies reproduced</h2>")
        for r in studies:
            parts += _card(r, out_root, about(r.html.parent), "study")
    parts.append("<h2 id='campaigns'>Our campaigns</h2>")
    for r in reports:
        parts += _card(r, out_root, about(r.html.parent), "campaign")
    if not reports:
        parts.append("<p>No campaign report has been built.</p>")
    parts.append("</body></html>")
    index = out_root / "index.html"
    index.write_text("\n".join(parts) + "\n")
    return index
