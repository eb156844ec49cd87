"""Children that never outlive the collector, even when it is killed outright.

Linux's parent-death signal (``prctl(PR_SET_PDEATHSIG)``) is armed in the
child, between fork and exec. A collector killed inside that window is gone
before the child arms it, and the signal never comes: the guest or SSH
session it was starting would live on alone (a UML guest boots and keeps its
namespace busy until ``--cleanup``). So once armed, the child checks that the
process that forked it is still its parent and, if not, ends there without
running its command (``os._exit``: the collector's signal handlers, inherited
by the fork, may catch or ignore the signal itself). The signal follows the
*thread* that forked: start such children from a thread that lives as long as
the collector (its main thread).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

PR_SET_PDEATHSIG = 1


def dies_with_this_process(sig: signal.Signals, required: bool = True) -> Callable[[], None]:
    """A ``preexec_fn`` for a child of this process: ``sig`` to the child when
    this process dies; a child whose parent died before it could ask for the
    signal ends before running its command.
    ``required=False``: where prctl is missing (not Linux), start it anyway."""
    parent = os.getpid()

    def arm() -> None:
        import ctypes

        try:
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, sig) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
        except (OSError, AttributeError):
            if required:
                raise
            return
        if os.getppid() != parent:  # the parent died between fork and prctl
            os._exit(1)

    return arm
