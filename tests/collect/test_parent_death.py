"""A child started with ``dies_with_this_process`` ends when the process that
started it is killed outright: after it has armed the parent-death signal, and
also when its parent was killed before it could (between fork and exec, where a
collector killed while booting a guest once left that guest running)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

# The parent: starts `sleep 60` as a child that dies with it, says the child's PID, and waits to be killed.
# "late": the child arms the signal only once its parent is gone (the window between fork and prctl, widened);
# "late, its signal caught": the same with SIGTERM, which the parent (and so the forked child) catches.
PARENT = """
import os, signal, subprocess, sys, time
from analysis.collect.parent_death import dies_with_this_process

said, when = sys.argv[1], sys.argv[2]
if when == "late, its signal caught":  # as the collector catches SIGTERM (signals_raise), and the fork inherits it
    signal.signal(signal.SIGTERM, lambda *_: None)
arm = dies_with_this_process(signal.SIGTERM if "caught" in when else signal.SIGKILL)
parent = os.getpid()

def say(pid):
    with open(said + ".part", "w") as f:
        f.write(str(pid))
    os.replace(said + ".part", said)

def late():
    say(os.getpid())
    deadline = time.monotonic() + 20
    while os.getppid() == parent and time.monotonic() < deadline:
        time.sleep(0.01)
    arm()

child = subprocess.Popen(["sleep", "60"], preexec_fn=late if when.startswith("late") else arm)
say(child.pid)
time.sleep(60)
"""


def alive(pid: int) -> bool:
    """Running, not a zombie left to a parent that does not reap it."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate() and time.monotonic() < deadline:
        time.sleep(0.02)
    return predicate()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
@pytest.mark.parametrize("when", ["armed", "late", "late, its signal caught"])
def test_the_child_ends_when_its_parent_is_killed_even_before_it_armed_the_signal(tmp_path, when):
    said = tmp_path / "child.pid"
    parent = subprocess.Popen([sys.executable, "-c", PARENT, str(said), when],
                              env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")})
    child = None
    try:
        assert wait_for(said.exists, 30), "the parent never started its child"
        child = int(said.read_text())
        assert alive(child)
    finally:
        parent.kill()
        parent.wait(timeout=30)
    try:
        assert wait_for(lambda: not alive(child), 10), f"child {child} outlived its parent ({when})"
    finally:
        if alive(child):
            os.kill(child, signal.SIGKILL)


# A UML guest's second link: unshare's child, which unshare (util-linux 2.38) arms after its
# fork with no look back. The window is widened: the child sleeps before the check, and is
# not armed at all (no --kill-child), as when unshare is killed between its fork and prctl.
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="a PID namespace needs root and unshare")
@pytest.mark.parametrize("holder", ["alive", "killed before the check"])
def test_a_guest_starts_only_while_its_unshare_holder_lives(tmp_path, holder):
    from analysis.collect.uml import STILL_HELD

    booted = tmp_path / "booted"
    child = f"sleep 0.5; {STILL_HELD}"
    proc = subprocess.Popen(["unshare", "--pid", "--fork", "/bin/sh", "-c", child, "guest",
                             "/bin/sh", "-c", f"echo booted >{booted}"], stderr=subprocess.DEVNULL)
    if holder == "killed before the check":
        time.sleep(0.1)
        proc.kill()
    proc.wait(timeout=30)
    assert wait_for(booted.exists, 3) == (holder == "alive")
    if holder != "alive":
        time.sleep(1)  # the orphan's sleep is over and its check made
        assert not booted.exists()
