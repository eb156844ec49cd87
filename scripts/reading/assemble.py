"""Install a reconciled study into the project.

assemble.py STEM RECONCILED_DIR [RECONCILED_DIR ...]
Concatenates the record parts (renumbering ids in text order), the claims parts
(renumbering C001...), keeps the figures and derived sections of the current claims
file, rewrites derived operands / evidence selectors as record ids, and writes:
  data/raw/published/STEM.csv, data/raw/published/reconciliation/STEM.csv,
  data/claims/STEM.yaml
"""
import csv, io, re, subprocess, sys
from pathlib import Path

import pandas as pd
import yaml

MAIN = Path(__file__).resolve().parents[2]  # the repository root
# the record before the double entry (for remapping derived operands), by commit
OLD_RECORD_COMMIT = "df42a03"
COLS = ["id", "study", "locator", "testbed", "os", "security", "ip_version", "transport", "size_bytes",
        "size_kind", "application", "host", "metric", "statistic", "value", "value_as_printed", "unit",
        "compared_to", "larger_side", "snippet", "note"]


def norm(t):
    return re.sub(r"\s+", " ", str(t or "")).strip()


def remap(where, old_rows, new_rows):
    """An old record selector -> {'id': new id} of the same printed number, if unambiguous."""
    if "id" in where:  # already an id of the new record
        return where, ""
    sel = old_rows
    for k, v in where.items():
        if k == "snippet_contains":
            sel = sel[sel["snippet"].str.contains(str(v), regex=False)]
        else:
            sel = sel[sel[k].astype(str) == str(v)]
    if len(sel) == 0:
        return where, "selects nothing in the old record"
    hits = set()
    for _, r in sel.iterrows():
        cand = new_rows[(new_rows["value_as_printed"] == r["value_as_printed"])
                        & pd.Series([norm(r["snippet"])[:60] in norm(t) or norm(t)[:60] in norm(r["snippet"]) for t in new_rows["snippet"]], index=new_rows.index)]
        if len(cand) > 1:
            cand = cand[(cand["metric"] == r["metric"]) & (cand["statistic"] == r["statistic"])]
        hits |= set(cand["id"])
    if len(hits) == 1:
        return {"id": hits.pop()}, ""
    return where, f"{len(hits)} candidate rows in the new record"


def main(stem, *parts):
    text = norm((MAIN / "data/papers" / f"{stem}.txt").read_text(encoding="utf-8"))
    records, claims, logs, audits = [], [], [], []
    for part in parts:
        p = Path(part)
        rec = pd.read_csv(p / "record.csv", dtype=str, keep_default_na=False)
        rec = rec.drop(columns=[c for c in rec.columns if c not in COLS])
        rec["_part"] = p.parent.name + "/" + p.name
        if "larger_side" not in rec:
            rec["larger_side"] = ""
        records.append(rec)
        doc = yaml.safe_load(open(p / "claims.yaml", encoding="utf-8"))
        for c in doc["claims"]:
            c["_part"] = p.parent.name + "/" + p.name
        claims += doc["claims"]
        log = pd.read_csv(p / "reconciliation.csv", dtype=str, keep_default_na=False)
        log["part"] = p.parent.name + "/" + p.name
        logs.append(log)
        if (p / "audit.yaml").is_file():
            audits += yaml.safe_load(open(p / "audit.yaml", encoding="utf-8")) or []
    rec = pd.concat(records, ignore_index=True)
    rec["_at"] = [text.find(norm(s)) + norm(s).find(norm(v)) for s, v in zip(rec["snippet"], rec["value_as_printed"])]
    assert (rec["_at"] >= 0).all(), rec[rec["_at"] < 0][["id", "snippet"]]
    rec = rec.sort_values(["_at"], kind="stable").reset_index(drop=True)
    new_ids = {(part, old): f"{stem[:3]}-{i:04d}" for i, (part, old) in enumerate(zip(rec["_part"], rec["id"]), 1)}
    rec["id"] = [new_ids[(p, o)] for p, o in zip(rec["_part"], rec["id"])]
    rec["study"] = stem
    out = MAIN / "data/raw/published"
    rec[COLS].to_csv(out / f"{stem}.csv", index=False, quoting=csv.QUOTE_MINIMAL)
    log = pd.concat(logs, ignore_index=True)
    if "final_id" in log:
        log["final_id"] = [new_ids.get((p, f), f) for p, f in zip(log["part"], log["final_id"])]
    (out / "reconciliation").mkdir(exist_ok=True)
    log.to_csv(out / "reconciliation" / f"{stem}.csv", index=False)
    old = yaml.safe_load(open(MAIN / "data/claims" / f"{stem}.yaml", encoding="utf-8"))
    claims.sort(key=lambda c: text.find(norm(c["quote"])))
    from pydantic import ValidationError
    from analysis.reproduce.claims import Claim

    final = []
    for i, c in enumerate(claims, 1):
        try:
            Claim(**{k: v for k, v in c.items() if k != "_part"})
        except ValidationError as err:
            if c.get("testable", True):
                raise
            # an untestable claim whose comparison has no two single levels: keep its words, drop the encoding
            for key in ("compare", "direction", "margin", "per", "exclude"):
                c.pop(key, None)
            c["reason"] = (c.get("reason") or "") + " (its comparison names groups, not two single levels)"
        part = c.pop("_part")
        c["id"] = f"C{i:03d}"
        c["rows"] = [new_ids.get((part, r), r) for r in c.get("rows", [])]
        final.append({k: v for k, v in c.items() if v not in (None, [], "") or k in ("scope",)})
    old_csv = subprocess.run(["git", "-C", str(MAIN), "show", f"{OLD_RECORD_COMMIT}:data/raw/published/{stem}.csv"],
                             check=True, capture_output=True, text=True).stdout
    old_rows = pd.read_csv(io.StringIO(old_csv), dtype=str, keep_default_na=False)
    derived = old.get("derived", [])
    for item in derived:
        for side in ("a", "b"):
            if item[side].get("where"):
                item[side]["where"], why = remap(item[side]["where"], old_rows, rec)
                if why:
                    print(f"  derived {item['id']}.{side}: {why}")
    doc = {"study": stem, "claims": final, "derived": derived,
           "audit": audits or old.get("audit", []), "figures": old.get("figures", [])}
    header = (f"# Claims of {stem}.txt: every claim of its abstract, results, discussion and conclusions,\n"
              f"# from two independent readings reconciled against the text\n"
              f"# (data/raw/published/reconciliation/{stem}.csv). See docs/reproductions.md.\n")
    with open(MAIN / "data/claims" / f"{stem}.yaml", "w", encoding="utf-8") as fh:
        fh.write(header)
        yaml.safe_dump(doc, fh, sort_keys=False, allow_unicode=True, width=120)
    print(stem, len(rec), "rows,", len(final), "claims,", len(log), "reconciliation rows,", len(audits), "audit items")


if __name__ == "__main__":
    main(*sys.argv[1:])
