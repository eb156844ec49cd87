"""Tables a reader can search, sort and filter on a report page, with no
network: DataTables 2 (with its SearchPanes extension), as the ``itables``
package bundles it (``dt_bundle.js``/``.css``, its offline mode), written into
the page once and applied to every table :mod:`analysis.report.show` marks
interactive, with the options the table carries (``data-options``).

The table is in the page as plain HTML first, every row an anchor, so it reads
(and links resolve) without JavaScript; DataTables only adds the search box,
sorting and filters. The few lines below only start DataTables and bring a
linked row (``#C017``) into view once the table has been rearranged. A table
in a folded section starts when a reader first opens the section: started at
once, the folded long tables of study 004 (some 8,500 rows) kept its page
from being ready for 6.5-8.2 s instead of 5.0-5.5 s (headless Chromium, 2
quiet cores), for tables a reader may never unfold. Printing opens every
section but starts none of them (the print stylesheet shows a long table's
first rows on its own): started by each print, they had study 004 print in
23-30 s; unstarted, and with the rows the page does not print set aside
(study_page.PRINT_SCRIPT), it prints the same 107 pages in 10-11 s.
"""

from __future__ import annotations

import base64
from pathlib import Path

from analysis.report.show import INTERACTIVE_CLASS

# A row a filter hides is not in the page: on a jump to it (#C017), clear the filters
# and jump again, also at load, once DataTables has rearranged the table.
START = """
const { default: DataTable } = await import("data:text/javascript;base64,%(bundle)s");
const tables = [];
const start = table => tables.push(new DataTable(table, JSON.parse(table.dataset.options || "{}")));
// A folded table starts when a reader opens its section, not when printing does (print.css
// prints its first rows without DataTables): each print would arrange thousands of rows.
const startWhenRead = (section, table) => section.addEventListener("toggle", () => {
  if (section.open && !("openedForPrint" in section.dataset)) start(table);
  else startWhenRead(section, table);
}, {once: true});
for (const table of document.querySelectorAll("table.%(cls)s")) {
  const closed = table.closest("details:not([open])");
  if (closed) startWhenRead(closed, table);
  else start(table);
}
function show() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id) return;
  let row = document.getElementById(id);
  if (!row) {
    for (const t of tables) {
      if (t.row("#" + CSS.escape(id)).any()) {
        if (t.searchPanes) t.searchPanes.clearSelections();
        t.search("").columns().search("").draw();
      }
    }
    row = document.getElementById(id);
  }
  if (row) row.scrollIntoView({block: "start"});
}
window.addEventListener("hashchange", show);
show();
document.documentElement.dataset.tablesReady = "yes";
"""


def bundle() -> tuple[str, str]:
    """DataTables' JavaScript module and stylesheet as itables ships them."""
    from itables import options

    js = Path(options.dt_bundle)
    return js.read_text(encoding="utf-8"), js.with_suffix(".css").read_text(encoding="utf-8")


def with_datatables(page: str) -> str:
    """``page`` with DataTables written in before ``</body>``, when a table of it is
    marked interactive; otherwise unchanged."""
    if INTERACTIVE_CLASS not in page:
        return page
    js, css = bundle()
    code = START % {"bundle": base64.b64encode(js.encode()).decode("ascii"), "cls": INTERACTIVE_CLASS}
    end = page.rindex("</body>")
    return page[:end] + f"<style>{css}</style>\n<script type='module'>{code}</script>\n" + page[end:]
