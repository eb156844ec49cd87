"""What a notebook of this project keeps when it is saved: nothing that only a
live kernel can show.

A widget's output (``application/vnd.jupyter.widget-view+json``) names a
model by a random id that lives in one kernel: every Run All writes a new id
into the notebook, so a reader who only ran it leaves git dirty, and the id
is dead once the kernel stops. The output's other forms stay (the explorer's
says what it draws and that it needs a live kernel), and so does every other
output. ``metadata.widgets`` (saved widget state) goes for the same reason.

Used twice, so that both write the same file: ``scripts/clean_notebooks.py``
(the committed notebooks, after ``make notebooks``) and the Jupyter server of
``make lab`` (``jupyter/jupyter_server_config.json``: the server's documented
``ContentsManager.pre_save_hook``, run on every save, autosave included).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "widgets"


def without_live_state(nb: MutableMapping[str, Any]) -> list[str]:
    """Drop widget views from the outputs and the saved widget state, in place
    (a notebook as JSON or an ``nbformat`` node); returns what was dropped.
    An output left with no form at all is dropped whole."""
    dropped = []
    if nb.get("metadata", {}).pop(WIDGET_STATE, None) is not None:
        dropped.append(f"metadata.{WIDGET_STATE}")
    for i, cell in enumerate(nb.get("cells", [])):
        kept = []
        for output in cell.get("outputs", []):
            data = output.get("data")
            if data is not None and data.pop(WIDGET_VIEW, None) is not None:
                dropped.append(f"cell {i}: a widget view")
                if not data:
                    continue
            kept.append(output)
        if "outputs" in cell:
            cell["outputs"] = kept
    return dropped


def pre_save(model: dict[str, Any], **_: Any) -> None:
    """The Jupyter server's pre-save hook: a notebook is saved without live state."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), MutableMapping):
        without_live_state(model["content"])


__all__ = ["WIDGET_STATE", "WIDGET_VIEW", "pre_save", "without_live_state"]
