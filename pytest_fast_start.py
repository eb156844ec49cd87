"""A pytest plugin `make test` loads with ``python -m pytest -p pytest_fast_start``
(found in the checkout, the working directory), before the installed plugins:
every pytest process starts without jsonschema's checker of the "iri" format.

nbval, a plugin, imports nbformat, and nbformat jsonschema; when rfc3987_syntax
is installed (JupyterLab's jupyter-events asks for it), jsonschema's import
compiles its IRI grammar: some 2 s of CPU in the controller, before any worker
starts, and again in every worker. Nothing a test runs in these processes checks
a format ("iri" or any other), so they take rfc3987_syntax as not installed, as
``analysis.report.pipeline`` does before it imports papermill. A process that
imported jsonschema already is left as it is.
"""

import sys

if "jsonschema" not in sys.modules:
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[assignment]  # None: "not installed"
