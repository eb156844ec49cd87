"""The contract every parser keeps, written once for the four tools.

For each tool's fixtures (tests/fixtures/<tool>/; iperf 2's folder also keeps
three iperf3 outputs in foreign_iperf3/ as look-alikes):

* every fixture has its sidecar NAME.cmd (the command that made it, or how it
  was damaged);
* a genuine fixture is recognised by its content as its own tool and parses
  into records of that tool, numbered 0..n-1 in the file;
* a fixture the parser must refuse (damaged by hand, or a genuine output of a
  variant the parser does not read) is a ParseError naming the file and line;
* no parser claims another tool's output;
* arbitrary text and mutated fixtures raise nothing but ParseError
  (test_fuzz.py mutates the bytes harder, per parser, and measures how many
  inputs reach each parser's body).

Hand-damaged copies live in tests/fixtures/damaged/<tool>/: their folder's
name is the tool's.

What the output cannot say is given as the manifest would give it: an ITGDec
``-b/-d/-j/-p`` time series gets ``series`` from the command in its sidecar.
The values each parser reads are checked in the tool's own test file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.errors import ParseError
from analysis.parsers import ditg, iperf2, iperf3, netperf, parse_file, sniff
from analysis.parsers.text import decode

from budget import examples

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
MODULES: dict[str, ModuleType] = {"netperf": netperf, "iperf2": iperf2, "iperf3": iperf3, "ditg": ditg}
ITGDEC_SERIES = {"-b": "bitrate", "-d": "delay", "-j": "jitter", "-p": "packetloss"}


@dataclass(frozen=True)
class Fixture:
    path: Path
    tool: str  # whose output it is (not always the folder: foreign_iperf3/)

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def sidecar(self) -> Path:
        return self.path.with_suffix(".cmd")

    @property
    def binary(self) -> bool:
        return self.path.suffix == ".bin"

    def note(self) -> str:
        return self.sidecar.read_text(encoding="utf-8") if self.sidecar.exists() else ""

    @property
    def refused(self) -> bool:
        """Damaged by hand or a refused variant, unless its sidecar says it must still parse."""
        note = self.note()
        if re.search(r"must (parse|load)", note):
            return False
        return self.name.startswith(("damaged", "unsupported_")) or "expect: ParseError" in note

    def hints(self) -> dict[str, dict[str, Any]]:
        """What the output cannot say, read from the command in the sidecar."""
        command = re.match(r"ITGDec \S+ (-[bdjp]) ", self.note())
        return {"ditg": {"series": ITGDEC_SERIES[command.group(1)]}} if command else {}

    def __str__(self) -> str:
        return f"{self.path.parent.name}/{self.name}"


def _fixtures() -> list[Fixture]:
    out = []
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix != ".cmd":
                owner = path.parent.name.removeprefix("foreign_") if path.parent != folder else folder.name
                out.append(Fixture(path, owner))
    return out


ALL = _fixtures()
GENUINE = [f for f in ALL if not f.refused]
REFUSED = [f for f in ALL if f.refused]


def parse_as(tool: str, text: str, source: str, hints: dict[str, dict[str, Any]] | None = None):
    """The tool's own parser on ``text``, with the hints meant for it."""
    return MODULES[tool].parse(text, source, **(hints or {}).get(tool, {}))


def test_every_tool_has_genuine_and_refused_fixtures():
    assert {f.tool for f in ALL} == set(MODULES)
    for tool in MODULES:
        assert [f for f in GENUINE if f.tool == tool] and [f for f in REFUSED if f.tool == tool], tool


@pytest.mark.parametrize("fixture", ALL, ids=str)
def test_every_fixture_has_a_sidecar(fixture):
    assert fixture.sidecar.exists()


@pytest.mark.parametrize("fixture", GENUINE, ids=str)
def test_genuine_fixture_is_recognised_and_parsed_as_its_tool(fixture):
    data = fixture.path.read_bytes()
    if fixture.binary:
        assert ditg.detect_binary(data)
    else:
        assert sniff(decode(data)) == fixture.tool
    result = parse_file(fixture.path, fixture.name, fixture.hints())
    assert result.tool == fixture.tool and result.records
    assert {r.tool for r in result.records} == {fixture.tool}
    assert [r.record_index for r in result.records] == list(range(len(result.records)))


@pytest.mark.parametrize("fixture", REFUSED, ids=str)
def test_refused_fixture_is_a_parse_error_naming_file_and_line(fixture):
    with pytest.raises(ParseError) as err:
        parse_file(fixture.path, fixture.name, fixture.hints())
    assert err.value.source == fixture.name
    assert err.value.line is not None and err.value.line >= 1
    assert str(err.value).startswith(f"{fixture.name}:{err.value.line}: ")


@pytest.mark.parametrize("tool", MODULES)
def test_no_parser_claims_another_tools_output(tool):
    others = [f for f in ALL if f.tool != tool]
    assert others
    claimed = [str(f) for f in others if MODULES[tool].detect(decode(f.path.read_bytes()))]
    assert claimed == []


@pytest.mark.parametrize("tool", MODULES)
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.text())
def test_arbitrary_text_raises_only_parse_error(tool, text):
    MODULES[tool].detect(text)
    try:
        parse_as(tool, text, "fuzz")
    except ParseError:
        pass


def _mutate(text: str, data: st.DataObject) -> str:
    """One line dropped, doubled, cut or with one character replaced; or a splice of text."""
    op = data.draw(st.sampled_from(["drop", "dup", "cut", "replace", "splice"]))
    if op == "splice":
        at = data.draw(st.integers(0, len(text)))
        return text[:at] + data.draw(st.text(max_size=30)) + text[at + data.draw(st.integers(0, 400)):]
    lines = text.splitlines()
    if not lines:
        return text
    i = data.draw(st.integers(0, len(lines) - 1))
    line = lines[i]
    if op == "drop":
        del lines[i]
    elif op == "dup":
        lines.insert(i, line)
    elif op == "cut":
        lines[i] = line[: data.draw(st.integers(0, len(line)))]
    else:
        j = data.draw(st.integers(0, max(len(line) - 1, 0)))
        lines[i] = line[:j] + data.draw(st.characters()) + line[j + 1:]
    return "\n".join(lines)


@pytest.mark.parametrize("tool", MODULES)
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_fixtures_raise_only_parse_error(tool, data):
    texts = [f for f in GENUINE if f.tool == tool and not f.binary]
    fixture = data.draw(st.sampled_from(texts), label="fixture")
    mutated = _mutate(decode(fixture.path.read_bytes()), data)
    try:
        parse_as(tool, mutated, fixture.name, fixture.hints())
    except ParseError:
        pass
