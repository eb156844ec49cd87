"""Update the audit's finding register (data/claims/findings/<study>.csv) after
a change that adds or removes findings: new ones are registered as current,
vanished ones retired with the reason given, which every retired finding must
carry (the regression guard in tests/reproduce/test_findings.py).

    python scripts/register_findings.py [STUDY ...] [--why "reason the vanished findings are gone"]
"""

from __future__ import annotations

import argparse
import sys

from analysis.errors import NetreproError
from analysis.reproduce.claims import studies
from analysis.reproduce.findings import disagreements, updated_register, write_register
from analysis.reproduce.study import reproduce_study


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("studies", nargs="*", help="study stems (default: all five)")
    parser.add_argument("--why", default="", help="why the findings no longer found are gone")
    args = parser.parse_args(argv)
    try:
        for study in args.studies or studies():
            audit = reproduce_study(study).audit
            gone, new = disagreements(study, audit)
            path = write_register(study, updated_register(study, audit, args.why))
            print(f"{path}: {len(new)} registered, {len(gone)} retired")
    except NetreproError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
