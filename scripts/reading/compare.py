"""Align two independent readings of a study and list every disagreement.

Usage: compare.py STUDY_TEXT READER1.csv READER2.csv OUT_PREFIX
Writes OUT_PREFIX.pairs.csv (aligned rows side by side, with a 'disagree' list)
and OUT_PREFIX.diff.csv (one row per field that differs, or a row only one reader has).
A printed number is identified by where it sits in the study text: the
offset of its value inside its snippet inside the whitespace-normalised text.
"""
import csv, re, sys
from collections import defaultdict

FIELDS = ["locator", "testbed", "os", "security", "ip_version", "transport", "size_bytes", "size_kind",
          "application", "host", "metric", "statistic", "value", "unit", "compared_to"]
COMPARED = ["os", "security", "ip_version", "transport", "size_bytes", "size_kind", "application", "host",
            "metric", "statistic", "value", "unit"]


def norm(t):
    return re.sub(r"\s+", " ", t or "").strip()


def canon(field, v):
    v = norm(v)
    if field in ("value", "size_bytes", "ip_version") and v:
        try:
            f = float(v.replace(",", ""))
            return str(int(f)) if f.is_integer() else repr(f)
        except ValueError:
            return v
    return v.lower()


def locate(text, row):
    snip = norm(row["snippet"])
    at = text.find(snip)
    if at < 0:
        return None
    inner = snip.find(norm(row["value_as_printed"]))
    return at + max(inner, 0)


def main(text_path, p1, p2, out):
    text = norm(open(text_path, encoding="utf-8").read())
    readers = []
    for p in (p1, p2):
        rows = list(csv.DictReader(open(p, encoding="utf-8")))
        by = defaultdict(list)
        for r in rows:
            by[(locate(text, r), norm(r["value_as_printed"]))].append(r)
        readers.append(by)
    pairs, diffs = [], []
    for key in sorted(set(readers[0]) | set(readers[1]), key=lambda k: (k[0] is None, k[0] or 0, k[1])):
        a, b = list(readers[0].get(key, [])), list(readers[1].get(key, []))
        while a and b:  # pair the most similar rows first
            best = max(((i, j) for i in range(len(a)) for j in range(len(b))),
                       key=lambda ij: sum(canon(f, a[ij[0]].get(f)) == canon(f, b[ij[1]].get(f)) for f in COMPARED))
            ra, rb = a.pop(best[0]), b.pop(best[1])
            bad = [f for f in COMPARED if canon(f, ra.get(f)) != canon(f, rb.get(f))]
            pairs.append({"offset": key[0], "value_as_printed": key[1], "id1": ra["id"], "id2": rb["id"],
                          "disagree": " ".join(bad), "snippet": norm(ra["snippet"])[:300]})
            for f in bad:
                diffs.append({"offset": key[0], "value_as_printed": key[1], "id1": ra["id"], "id2": rb["id"],
                              "field": f, "reader1": ra.get(f, ""), "reader2": rb.get(f, ""),
                              "snippet": norm(ra["snippet"])})
        for who, rest in (("reader1 only", a), ("reader2 only", b)):
            for r in rest:
                diffs.append({"offset": key[0], "value_as_printed": key[1], "id1": r["id"] if who == "reader1 only" else "",
                              "id2": r["id"] if who == "reader2 only" else "", "field": who,
                              "reader1": "", "reader2": "", "snippet": norm(r["snippet"])})
    for name, table in (("pairs", pairs), ("diff", diffs)):
        with open(f"{out}.{name}.csv", "w", newline="", encoding="utf-8") as fh:
            cols = list(table[0]) if table else ["none"]
            w = csv.DictWriter(fh, cols)
            w.writeheader()
            w.writerows(table)
    only = sum(1 for d in diffs if d["field"].endswith("only"))
    print(f"{len(pairs)} paired rows, {sum(1 for p in pairs if p['disagree'])} with a field disagreement, "
          f"{len(diffs) - only} field disagreements, {only} rows only one reader has")


if __name__ == "__main__":
    main(*sys.argv[1:5])
