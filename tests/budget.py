"""How many inputs a property test draws, by Hypothesis profile (tests/conftest.py).

A test that asks for more than the profile's count (``@settings(max_examples=N)``)
writes ``examples(N)`` instead: N in `make test` ("ci", derandomised) and in
`make fuzz` ("dev"), a fifth of N in `make test-fast` ("fast": the same fixed
seed, fewer inputs; `make test` still draws all N). Importable from every test
folder: tests/conftest.py puts tests/ on sys.path.
"""

from __future__ import annotations

from hypothesis import settings


def examples(n: int) -> int:
    """``n``, scaled down when the loaded profile draws fewer inputs than "ci" does."""
    per_test, ci = settings().max_examples, settings.get_profile("ci").max_examples
    return n if per_test >= ci else max(1, n * per_test // ci)
