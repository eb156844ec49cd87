"""Children the tests interrupt with SIGINT, as a user's Ctrl-C would."""

from __future__ import annotations

import signal


def sigint_default() -> None:
    """A child's SIGINT back to its default action (a ``preexec_fn``).

    A shell that started the tests in the background (``make test &``,
    nohup) leaves SIGINT ignored, children inherit that, and Python then
    installs no KeyboardInterrupt handler: a test sending SIGINT would check
    a command that cannot be interrupted at all."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
