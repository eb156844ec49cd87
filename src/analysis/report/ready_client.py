"""A kernel client that knows a kernel is ready without waiting for a quiet line."""

from __future__ import annotations

import time
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient


class ReadyKernelClient(AsyncKernelClient):
    """The report's client of a kernel: ready as soon as IOPub carries the
    kernel's "idle" for a kernel_info request of its own.

    jupyter_client's ``wait_for_ready`` ends by waiting until IOPub has been
    quiet for 0.2 s, and each notebook paid it twice (its clear, papermill's
    client): 17 s of idle worker time in a cold build of 42 notebooks. The
    "idle" of this client's own request is as good a sign: IOPub is connected
    (a SUB socket can miss what is sent before its subscription lands; then
    the request is sent again) and nothing of the request is left on it."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        deadline = time.monotonic() + (float("inf") if timeout is None else timeout)
        sent: set[str] = set()
        ask = True
        while time.monotonic() < deadline:
            if ask:  # one request at a time: a busy kernel's late replies must not fall behind new requests
                sent.add(self.kernel_info())
                ask = False
            try:
                reply = await self.get_shell_msg(timeout=1)
            except Empty:  # a kernel still starting (seconds, on a busy machine): its reply will come
                if not await self.is_alive():
                    raise RuntimeError("Kernel died before replying to kernel_info") from None
                continue
            request = reply["parent_header"].get("msg_id")
            if request not in sent:
                continue
            if await self._idle_after(request):
                self._handle_kernel_info_reply(reply)
                return
            ask = True  # its "idle" went by before IOPub was connected: ask again
        raise RuntimeError(f"Kernel didn't respond in {timeout} seconds")

    async def _idle_after(self, request: str) -> bool:
        """Read IOPub up to the kernel's "idle" for ``request``; False when it did not come within 0.2 s."""
        while True:
            try:
                msg = await self.get_iopub_msg(timeout=0.2)
            except Empty:
                return False
            if (msg["msg_type"] == "status" and msg["content"].get("execution_state") == "idle"
                    and msg["parent_header"].get("msg_id") == request):
                return True
