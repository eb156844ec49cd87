"""Fallback: derive larger_side from the reconciled note ("X higher", "IPv4 lower"), where
a reader wrote which side is larger. Prints coverage; writes only with --write."""
import re, sys
import pandas as pd

DIFF = {"diff", "pct_diff", "max_diff", "max_pct_diff", "upper_bound", "bound"}
WORD = re.compile(r"([A-Za-z0-9][\w .+\-]*?)\s+(higher|larger|lower|smaller|more|less)\b", re.I)


def labels(row):
    out = {}
    for col in ("os", "security", "transport", "application", "host", "testbed"):
        if row[col]:
            out[row[col].lower()] = col
    if row["ip_version"]:
        out[f"ipv{row['ip_version']}"] = "ip_version"
    if row["size_bytes"]:
        out[row["size_bytes"]] = "size_bytes"
    if row["security"] == "open":
        out["open system"] = "security"
    return out


def side(row):
    note = str(row["note"])
    if "not stated" in note.lower() or "presumably" in note.lower():
        return ""
    subj = labels(row)
    comp = str(row["compared_to"]).lower()
    for m in WORD.finditer(note):
        phrase, word = m.group(1).lower().strip(), m.group(2).lower()
        bigger = word in ("higher", "larger", "more")
        for lab in sorted(subj, key=len, reverse=True):
            if phrase.endswith(lab) and lab not in comp:
                return "subject" if bigger else "compared"
        for tok in re.split(r",\s*", comp):
            tok = tok.strip()
            if tok and phrase.endswith(tok) and tok not in subj:
                return "compared" if bigger else "subject"
    return ""


def main(path, write=False):
    r = pd.read_csv(path, dtype=str, keep_default_na=False)
    if "larger_side" not in r:
        r.insert(r.columns.get_loc("compared_to") + 1, "larger_side", "")
    d = r["statistic"].isin(DIFF)
    filled = 0
    for i in r.index[d & (r["larger_side"] == "")]:
        s = side(r.loc[i])
        if s:
            r.loc[i, "larger_side"] = s
            filled += 1
    print(path, "difference rows", int(d.sum()), "filled from notes", filled,
          "still empty", int((d & (r["larger_side"] == "")).sum()))
    if write:
        r.to_csv(path, index=False)


if __name__ == "__main__":
    main(sys.argv[1], "--write" in sys.argv)
