"""`make test`'s pytest processes start without jsonschema's IRI grammar
(pytest_fast_start.py), and nbformat still validates notebooks in them."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import sys
import pytest_fast_start
import nbformat, nbval.plugin
nb = nbformat.read("notebooks/02_explore.ipynb", as_version=4)
nbformat.validate(nb)
del nb.cells[0]["source"]
try:
    nbformat.validate(nb)
    print("broken notebook accepted")
except nbformat.ValidationError:
    print("broken notebook refused")
print("grammar imported:", sys.modules.get("rfc3987_syntax") is not None)
"""


def test_a_test_process_skips_the_iri_grammar_and_still_validates_notebooks():
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["broken notebook refused", "grammar imported: False"]


def test_make_test_suite_loads_it_with_python_m_pytest():
    dry = subprocess.run(["make", "-n", "--no-print-directory", "test-suite"], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert " -m pytest -p pytest_fast_start " in dry
