"""Claims files validate, and every quote is verbatim in its study's text."""
import copy

import pytest
import yaml

from analysis.reproduce.claims import ClaimsError, claims_dir, parse_claims, studies

STUDIES = studies()


def test_every_study_has_a_claims_file():
    assert STUDIES == ["000_4e5320b6fe1e825c", "001_67ed56f85540d5f7", "002_6c0e8c5c95705e2f",
                       "003_78d69edb35c6dd71", "004_a7738a926cf50bd6"]


@pytest.mark.parametrize("study", STUDIES)
def test_claims_file_validates_and_names_its_study(study, record_of):
    claims = record_of(study).claims
    assert claims.study == study and claims.claims


@pytest.mark.parametrize("study", STUDIES)
def test_every_quote_occurs_verbatim_in_the_study(study, paper_text, normalised, record_of):
    text, claims = paper_text[study], record_of(study).claims
    quotes = [(c.id, c.quote) for c in claims.claims] + [(d.id, d.quote) for d in claims.derived]
    quotes += [(a.id, q) for a in claims.audit for q in a.quotes]
    missing = [(i, q) for i, q in quotes if normalised(q) not in text]
    assert not missing


@pytest.mark.parametrize("study", STUDIES)
def test_every_evidence_and_operand_selects_exactly_one_printed_value(study, record_of):
    from analysis.reproduce.derived import recompute_derived
    record = record_of(study)
    for claim in record.claims.claims:
        for ev in claim.evidence:
            record.index.evidence_row(ev)  # raises LookupError otherwise
    assert len(recompute_derived(record)) == len(record.claims.derived)


def _doc():
    return yaml.safe_load((claims_dir() / "000_4e5320b6fe1e825c.yaml").read_text())


@pytest.mark.parametrize("damage, message", [
    (lambda d: d["claims"][0].update(direction="bigger"), "direction"),
    (lambda d: d["claims"][0].update(colour="red"), "colour"),
    (lambda d: d["claims"].append(copy.deepcopy(d["claims"][0])), "duplicate claims id"),
    (lambda d: d["claims"][0]["compare"].update(levels=["Fedora 12", "Windows 7", "Windows XP"]), "exactly two levels"),
    (lambda d: d["audit"][0].update(kind="oops"), "unknown audit kind"),
    (lambda d: d["derived"][0].update(printed="one"), "printed"),
])
def test_a_damaged_claims_file_is_refused_with_the_reason(damage, message):
    doc = _doc()
    damage(doc)
    with pytest.raises(ClaimsError, match=message):
        parse_claims(doc, "damaged.yaml")
