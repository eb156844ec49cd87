"""jsonschema imported without its checker of the "iri" format.

When rfc3987_syntax is installed (JupyterLab's jupyter-events asks for it),
importing jsonschema compiles its IRI grammar: about 1.9 s of CPU in every
process that imports nbformat (papermill, nbval). nbformat's schemas check no
format, so a process that only reads, validates and runs notebooks takes
rfc3987_syntax as not installed. Where jsonschema is already imported,
nothing changes.
"""

import sys


def skip_iri_grammar() -> None:
    """Before nbformat (and so jsonschema) is first imported: rfc3987_syntax counts as not installed."""
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]  # None: "not installed"
