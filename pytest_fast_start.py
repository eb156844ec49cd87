"""A pytest plugin `make test` loads with ``python -m pytest -p pytest_fast_start``
(found in the checkout, the working directory), before the installed plugins:
every pytest process starts without jsonschema's IRI grammar
(:mod:`analysis.report.jsonschema_formats`), which nbval's import of nbformat
compiled in the controller before any worker started, and again in every worker.
Nothing a test runs in these processes checks a format.
"""

from analysis.report.jsonschema_formats import skip_iri_grammar

skip_iri_grammar()
