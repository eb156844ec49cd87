"""Reading a child's pipes with a deadline.

``communicate()`` waits for end of file on every pipe, and a process that
daemonises out of the group we kill keeps our pipes open for as long as it
lives; so every read here has a deadline, and a caller that gives up closes
the pipes instead of waiting for them.
"""

from __future__ import annotations

import os
import selectors
import time
from typing import IO, Callable, Mapping

CHUNK = 1 << 16


class Pipes:
    """A child's output pipes, each feeding its sink (a callable taking bytes)."""

    def __init__(self, sinks: Mapping[IO[bytes], Callable[[bytes], object]]):
        self.sinks = {f.fileno(): sink for f, sink in sinks.items()}
        self.files = list(sinks)
        self.ended: set[int] = set()

    @property
    def done(self) -> bool:
        """Every pipe reached end of file."""
        return len(self.ended) == len(self.sinks)

    def read(self, deadline: float | Callable[[], float], stop: Callable[[], bool] = lambda: False) -> bool:
        """Feed the sinks until every pipe ends (True), or the monotonic
        ``deadline`` passes or ``stop()`` holds (False; checked every 0.1 s).
        A callable deadline is asked again each time: what was read may move it."""
        end = deadline if callable(deadline) else lambda: deadline
        with selectors.DefaultSelector() as sel:
            for fd in self.sinks:
                if fd not in self.ended:
                    sel.register(fd, selectors.EVENT_READ)
            while sel.get_map():
                left = end() - time.monotonic()
                if left <= 0 or stop():
                    return False
                for key, _ in sel.select(min(left, 0.1)):
                    chunk = os.read(key.fd, CHUNK)
                    if chunk:
                        self.sinks[key.fd](chunk)
                    else:
                        sel.unregister(key.fd)
                        self.ended.add(key.fd)
        return True

    def close(self) -> None:
        for f in self.files:
            f.close()
