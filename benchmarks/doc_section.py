"""A generated section of a docs page, between two HTML comment markers, replaced
whole by the benchmark that measures it (or appended under its heading the first time)."""

from __future__ import annotations

import re
from pathlib import Path


def write_section(doc_path: Path, start: str, end: str, heading: str, text: str) -> None:
    """Put ``text`` (which begins with ``start`` and ends with ``end``) in place in ``doc_path``."""
    doc = doc_path.read_text()
    if start in doc:
        doc = re.sub(re.escape(start) + ".*?" + re.escape(end), lambda _: text, doc, flags=re.S)
    else:
        doc = doc.rstrip("\n") + f"\n\n{heading}\n\n{text}\n"
    doc_path.write_text(doc)
