"""What a stopped collector leaves is stopped: `collect --cleanup` kills the User-mode Linux guests
a killed collector left running (by PID, only its own), and a signal Python dropped still stops a campaign."""
import subprocess
import sys
import time

from analysis.collect.testbed import stop_orphan_guests


def fake_guest(umid: str) -> subprocess.Popen:
    """A process whose command line reads like a guest's: argv[0] ends with linux.uml, umid=<name>."""
    return subprocess.Popen(["/var/cache/netrepro/uml/bookworm/usr/bin/linux.uml", "-c", "import time; time.sleep(60)",
                             f"umid={umid}"], executable=sys.executable)


def test_a_lingering_guest_of_the_dead_testbed_is_killed_and_no_other():
    ours, other = fake_guest("nr-0a1b2c-snd"), fake_guest("nr-ffffff-snd")
    try:
        time.sleep(0.3)  # until both have exec'd
        assert stop_orphan_guests("nr-0a1b2c") == [ours.pid]
        assert ours.wait(timeout=5) == -9
        assert other.poll() is None
        assert stop_orphan_guests("nr-0a1b2c") == []
    finally:
        for proc in (ours, other):
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def test_a_signal_whose_exception_python_dropped_still_stops_the_loop_at_its_next_check():
    """A SIGTERM landing in a fork handler prints 'Exception ignored' and the code goes on;
    the caught signal is kept, and the campaign's next check raises it."""
    import os
    import signal

    import pytest

    from analysis.collect.testbed import Interrupted, signals_raise

    with signals_raise() as signals:
        signals.check()  # nothing caught yet
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(1)  # the handler runs here
        except Interrupted:
            pass  # what a fork handler would swallow
        with pytest.raises(Interrupted, match="SIGTERM"):
            signals.check()
