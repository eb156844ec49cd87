"""Shared helpers for building the published record CSVs (run from anywhere: python scripts/reading/earlier_record/s000.py)."""
import csv, re
from pathlib import Path
import os

OUT = Path(__file__).resolve().parents[3] / 'data' / 'raw' / 'published'
PAPERS = Path(os.environ.get('NETREPRO_PAPERS', OUT.parents[2] / '..' / 'shared' / 'papers'))
COLS = ['study','locator','testbed','os','security','ip_version','transport','size_bytes','size_kind','application',
        'host','metric','statistic','value','value_as_printed','unit','compared_to','snippet','note']

def norm(s):
    return re.sub(r'\s+', ' ', s).strip()

class Study:
    def __init__(self, stem, testbed='', size_kind='packet'):
        self.stem = stem; self.text = norm((PAPERS / f'{stem}.txt').read_text(encoding='utf-8'))
        self.rows = []; self.defaults = dict(testbed=testbed, size_kind=size_kind)
    def add(self, locator, metric, statistic, vp, unit, snippet, os='', ip='', transport='', size='',
            compared_to='', note='', **kw):
        snippet = norm(snippet)
        if snippet not in self.text:
            print(f'{self.stem}: snippet not found: {snippet!r}'); self.bad = True
        if vp not in snippet:
            print(f'{self.stem}: value {vp!r} not in snippet {snippet!r}'); self.bad = True
        row = dict.fromkeys(COLS, '')
        row.update(self.defaults)
        row.update(study=self.stem, locator=locator, metric=metric, statistic=statistic,
                   value=repr(float(vp.replace(',', ''))) if vp else '', value_as_printed=vp, unit=unit,
                   snippet=snippet, os=os, ip_version=str(ip), transport=transport, size_bytes=str(size),
                   compared_to=compared_to, note=note)
        row.update({k: str(v) for k, v in kw.items()})
        if not row['size_bytes']:
            row['size_kind'] = ''
        self.rows.append(row)
    def table(self, locator, metric, statistic, unit, lines, colspec, sizes_first=True, note='', **common):
        """lines: table body lines as printed; colspec: list of dicts of column attributes."""
        for line in lines:
            toks = norm(line).split()
            size, vals = toks[0], toks[1:]
            assert len(vals) == len(colspec), (line, colspec)
            for v, spec in zip(vals, colspec):
                self.add(locator, metric, statistic, v, unit, line, size=size, note=note, **{**common, **spec})
    bad = False
    def write(self):
        if self.bad: raise SystemExit('errors')
        OUT.mkdir(parents=True, exist_ok=True)
        with open(OUT / f'{self.stem}.csv', 'w', newline='', encoding='utf-8') as f:
            w = csv.DictWriter(f, COLS, lineterminator='\n'); w.writeheader(); w.writerows(self.rows)
        nonuniq = sum(self.text.count(r['snippet']) > 1 for r in self.rows)
        print(self.stem, len(self.rows), 'rows;', nonuniq, 'non-unique snippets')
