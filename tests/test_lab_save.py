"""A notebook saved by the project's JupyterLab (or cleaned for a commit)
keeps no widget view and no widget state, and autosave is off, so running a
notebook leaves git clean (analysis.report.lab_save, jupyter/)."""

from __future__ import annotations

import copy
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest

from analysis.report.lab_save import WIDGET_VIEW, pre_save, without_live_state

ROOT = Path(__file__).resolve().parents[1]
VIEW = {"model_id": "9a6330dfb54a41cd9bbb7e45bef73815", "version_major": 2, "version_minor": 0}


def run_notebook() -> nbformat.NotebookNode:
    """A notebook as JupyterLab sends it after Run All: a table, a widget with
    its text form, a widget alone (a progress bar), and saved widget state."""
    nb = nbformat.v4.new_notebook(metadata={"widgets": {"application/vnd.jupyter.widget-state+json": {"state": {}}}})
    table = nbformat.v4.new_output("execute_result", {"text/plain": "   a\n0  1", "text/html": "<table/>"},
                                   execution_count=1)
    explorer = nbformat.v4.new_output("display_data", {WIDGET_VIEW: dict(VIEW), "text/plain": "Explorer of demo"})
    bar = nbformat.v4.new_output("display_data", {WIDGET_VIEW: dict(VIEW, model_id="b1")})
    stream = nbformat.v4.new_output("stream", name="stdout", text="done\n")
    nb.cells = [nbformat.v4.new_code_cell("table", outputs=[table], execution_count=1),
                nbformat.v4.new_code_cell("Explorer(...)", outputs=[explorer, bar, stream], execution_count=2)]
    return nb


def test_widget_views_and_state_go_and_every_other_output_stays():
    nb = run_notebook()
    before = copy.deepcopy(nb)
    assert without_live_state(nb) == ["metadata.widgets", "cell 1: a widget view", "cell 1: a widget view"]
    assert "widgets" not in nb.metadata
    assert nb.cells[0] == before.cells[0]
    assert [o.get("data", {}).get("text/plain") for o in nb.cells[1].outputs] == ["Explorer of demo", None]
    assert nb.cells[1].outputs[1] == before.cells[1].outputs[2]  # the stream; the bar, a widget alone, is gone
    assert without_live_state(nb) == []  # nothing left to drop: two saves write the same file


def test_the_hook_cleans_notebooks_and_leaves_other_files_alone():
    model = {"type": "notebook", "content": json.loads(nbformat.writes(run_notebook()))}
    pre_save(model=model, path="02_explore.ipynb", contents_manager=None)
    assert WIDGET_VIEW not in json.dumps(model) and "widgets" not in model["content"]["metadata"]
    text = {"type": "file", "format": "text", "content": json.dumps({WIDGET_VIEW: VIEW})}
    pre_save(model=text, path="notes.json", contents_manager=None)
    assert json.loads(text["content"]) == {WIDGET_VIEW: VIEW}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _call(url: str, method: str = "GET", body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "token netrepro-test"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


@pytest.mark.slow  # starts a real JupyterLab server (seconds): out of `make test-fast`, in `make test`
def test_the_projects_jupyterlab_saves_without_widgets_and_does_not_autosave(tmp_path):
    """The Jupyter server as `make lab` starts it (JUPYTER_CONFIG_PATH=jupyter/),
    on loopback, with a private config and runtime folder; a save through its
    contents API (what Ctrl+S sends) is written without the widget views."""
    port = _free_port()
    env = dict(os.environ, JUPYTER_CONFIG_PATH=str(ROOT / "jupyter"), JUPYTER_CONFIG_DIR=str(tmp_path / "config"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"), JUPYTERLAB_SETTINGS_DIR=str(tmp_path / "settings"),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp_path / "workspaces"))
    (tmp_path / "nb").mkdir()
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1", f"--port={port}",
         f"--notebook-dir={tmp_path / 'nb'}", "--IdentityProvider.token=netrepro-test"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _call(f"{base}/api/status")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.5)
        for plugin, key in (("@jupyterlab/docmanager-extension:plugin", "autosave"),
                            ("@jupyter-widgets/jupyterlab-manager:plugin", "saveState")):
            served = _call(f"{base}/lab/api/settings/{plugin}")  # the defaults JupyterLab starts from
            assert served["schema"]["properties"][key]["default"] is False and key not in served["settings"]
        sent = run_notebook()
        content = json.loads(nbformat.writes(sent))
        _call(f"{base}/api/contents/run.ipynb", "PUT", {"type": "notebook", "format": "json", "content": content})
        saved = (tmp_path / "nb" / "run.ipynb").read_text()
        assert WIDGET_VIEW not in saved
        without_live_state(sent)
        assert nbformat.reads(saved, as_version=4) == sent  # the rest as sent
    finally:
        server.terminate()
        server.wait(timeout=30)
