"""The campaign and study notebooks are committed as JupyterLab saves them,
so opening one leaves git clean (scripts/clean_notebooks.py; `make notebooks`
runs it)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "clean_notebooks.py"
CAMPAIGN_NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb"))
STUDY_NOTEBOOKS = sorted((ROOT / "notebooks" / "papers").glob("*.ipynb"))


def script():
    """scripts/clean_notebooks.py loaded in this process: a second interpreter would
    import nbformat again (2 s of CPU, most of it jsonschema's optional IRI grammar)."""
    spec = importlib.util.spec_from_file_location("clean_notebooks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_notebooks_are_clean(capsys):
    assert len(CAMPAIGN_NOTEBOOKS) == 4 and len(STUDY_NOTEBOOKS) == 2
    assert script().main(["--check", *map(str, CAMPAIGN_NOTEBOOKS + STUDY_NOTEBOOKS)]) == 0, capsys.readouterr().err


@pytest.mark.slow  # runs the script as `make notebooks` does, in an interpreter of its own: out of `make test-fast`
def test_a_notebook_run_by_papermill_is_cleaned_to_what_jupyterlab_writes(tmp_path):
    nb = nbformat.v4.new_notebook(metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "papermill": {"duration": 3.2, "start_time": "2026-11-23T12:07:19"}})
    cell = nbformat.v4.new_code_cell("1 + 1", metadata={
        "tags": ["parameters"], "papermill": {"duration": 0.01, "status": "completed"},
        "execution": {"iopub.execute_input": "2026-11-23T12:07:19.179613Z"}})
    nb.cells.append(cell)
    path = tmp_path / "run.ipynb"
    nbformat.write(nb, path)
    cleaner = script()
    assert cleaner.main(["--check", str(path)]) == 1
    subprocess.run([sys.executable, str(SCRIPT), str(path)], check=True, capture_output=True)  # as make notebooks
    cleaned = nbformat.read(path, as_version=4)
    assert cleaned.metadata.kernelspec.display_name == "Python 3 (ipykernel)" and "papermill" not in cleaned.metadata
    assert cleaned.cells[0].metadata == {"tags": ["parameters"]}  # tags stay, run records go
    assert cleaner.main(["--check", str(path)]) == 0
    assert path.read_text().endswith("}\n")
