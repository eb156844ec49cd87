"""The report's kernel client (analysis.report.ready_client): ready when IOPub
carries the "idle" of its own kernel_info request, with IOPub connected, and
never ready for a kernel that is gone."""

from __future__ import annotations

import pytest

pytest.importorskip("jupyter_client")


def _outputs(kernel, code: str, folder) -> list[str]:
    """What ``code`` printed, as a fresh client of ``kernel`` sees it on IOPub
    right after its wait_for_ready returned."""
    from jupyter_core.utils import run_sync

    printed: list[str] = []

    async def run() -> None:
        client = kernel.manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            reply = await client.execute_interactive(
                code, timeout=60, output_hook=lambda msg: printed.append(msg["content"].get("text", ""))
                if msg["msg_type"] == "stream" else None)
            assert reply["content"]["status"] == "ok"
        finally:
            client.stop_channels()

    run_sync(run)()
    return printed


def test_a_fresh_client_is_ready_with_iopub_connected(tmp_path, monkeypatch):
    """From the kernel's first moments (its start not awaited by any client
    yet) and for each new client after: the client had the kernel's reply
    to its kernel_info, and the first execution's output reaches it."""
    from analysis.report.kernels import SharedKernel
    from analysis.report.ready_client import ReadyKernelClient

    replies = []
    monkeypatch.setattr(ReadyKernelClient, "_handle_kernel_info_reply", lambda self, msg: replies.append(msg))
    with SharedKernel(tmp_path) as kernel:
        assert isinstance(kernel.manager.client(), ReadyKernelClient)
        for i in range(5):
            assert _outputs(kernel, f"print('run', {i})", tmp_path) == [f"run {i}\n"]
            assert len(replies) == i + 1 and replies[-1]["msg_type"] == "kernel_info_reply"


def test_ready_leaves_nothing_of_its_request_on_iopub(tmp_path):
    """wait_for_ready reads IOPub up to its request's "idle": what a notebook's
    first cell then reads there is its own."""
    from queue import Empty

    from jupyter_core.utils import run_sync

    from analysis.report.kernels import SharedKernel

    async def leftover(kernel) -> list[dict]:
        client = kernel.manager.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            try:
                return [await client.get_iopub_msg(timeout=0.5)]
            except Empty:
                return []
        finally:
            client.stop_channels()

    with SharedKernel(tmp_path) as kernel:
        assert [run_sync(leftover)(kernel) for _ in range(3)] == [[], [], []]


def test_a_client_of_a_stopped_kernel_is_never_ready(tmp_path):
    from jupyter_core.utils import run_sync

    from analysis.report.kernels import SharedKernel

    kernel = SharedKernel(tmp_path)
    client = kernel.manager.client()
    kernel.shutdown()
    client.start_channels()
    try:
        with pytest.raises(RuntimeError, match="Kernel died before replying|didn't respond"):
            run_sync(client.wait_for_ready)(timeout=3)
    finally:
        client.stop_channels()


def test_a_kernel_slow_to_answer_is_ready_once_it_answers(tmp_path):
    """A kernel that cannot answer for seconds (a busy machine; here stopped
    with SIGSTOP, then continued) is ready soon after it can: asking again on
    every second of silence once left each reply one request behind the
    client, which then never saw a reply to its latest request (a report build
    failed "Kernel didn't respond in 120 seconds" under three test workers)."""
    import os
    import signal
    import threading
    import time

    from jupyter_core.utils import run_sync

    from analysis.report.kernels import SharedKernel

    with SharedKernel(tmp_path) as kernel:
        pid = kernel.manager.provisioner.process.pid
        client = kernel.manager.client()
        os.kill(pid, signal.SIGSTOP)
        threading.Timer(3.5, os.kill, (pid, signal.SIGCONT)).start()
        started = time.monotonic()
        client.start_channels()
        try:
            run_sync(client.wait_for_ready)(timeout=30)
        finally:
            client.stop_channels()
        assert 3.5 <= time.monotonic() - started < 15
