"""The project's errors: one base class, so the CLI reports every one the
same way (one line on stderr, exit code 2) and callers can catch them all."""

from __future__ import annotations


class NetreproError(ValueError):
    """Input netrepro cannot use; the message names the file (and line or key) and the reason."""


class ParseError(NetreproError):
    """An output that a parser cannot read: names the file, the 1-based line
    and what was expected. Parsers raise only this, never a guessed record."""

    def __init__(self, source: str, line: int | None, reason: str):
        self.source = source
        self.line = line
        self.reason = reason
        super().__init__(f"{source}:{line if line is not None else '?'}: {reason}")


class DamagedOutputError(ParseError):
    """An output with bytes no tool prints (a NUL over a digit): damage, never an
    aborted run, so the file is rejected, not counted as a failed run."""


class ManifestError(NetreproError):
    """A campaign manifest that cannot be used: names the file, the key and the fix."""


class HypothesisError(NetreproError):
    """A hypothesis file or spec that cannot be evaluated; names the file, id and key."""


class ClaimsError(NetreproError):
    """A study's claims file that does not validate; names the file and the entry."""


class PlanError(NetreproError):
    """A collection plan that does not validate; names the file and the key."""


class ReportError(NetreproError):
    """A report notebook failed: names the campaign, the notebook, the cell and the error."""


class RegistrationError(NetreproError):
    """A campaign's registration record (collect/registration.yaml) that cannot be read: names the file, line and key."""
