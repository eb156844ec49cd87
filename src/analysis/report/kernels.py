"""The kernels the report runs its notebooks in: one per worker thread, kept
from task to task (:class:`KernelPool`), each notebook started on a cleared
namespace, the kernels' BLAS sharing the cores.

jupyter_client is imported when a kernel starts: a report with nothing to
rebuild starts none.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from pathlib import Path

from analysis import config
from analysis.errors import ReportError

NOTEBOOK_DIR = config.notebooks_dir()

# The kernel talks to papermill over loopback TCP and warns, once per notebook, that
# this is unencrypted; errors still show.
# no log chatter, and no IPython history: kernels running side by side share its
# SQLite file, and a clash prints "Session/line number was not unique" into a page
KERNEL_QUIET = ["--IPKernelApp.log_level=ERROR", "--HistoryManager.enabled=False"]


LIBRARY = Path(__file__).resolve().parents[2]  # the folder holding this `analysis` package


def kernels_use_this_library() -> None:
    """Put the folder of the running ``analysis`` package first on the
    PYTHONPATH the kernels inherit, as an absolute path: a kernel runs in the
    notebook's folder, where a relative ``PYTHONPATH=src`` finds nothing, and
    would import whichever ``analysis`` is installed (another checkout's)."""
    current = os.environ.get("PYTHONPATH", "")
    if current.split(os.pathsep)[0] != str(LIBRARY):
        os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(LIBRARY), current) if p)


BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def blas_threads_per_kernel(jobs: int) -> int:
    """The cores a kernel of a build running ``jobs`` notebooks at once may use for
    linear algebra: OpenBLAS starts a thread per core in every process, and two
    kernels' threads on two cores wait for each other spinning: lan-p2p's ANOVA
    tables took 13.8 s of CPU so, 1.0 s on one thread."""
    return max(1, (os.cpu_count() or 1) // max(1, jobs))


def kernel_environment(blas_threads: int | None) -> dict[str, str]:
    """This process's environment, with ``blas_threads`` for numpy's BLAS unless
    the user set a count (None: as the environment says)."""
    env = dict(os.environ)
    if blas_threads is not None:
        for name in BLAS_THREAD_VARIABLES:
            env.setdefault(name, str(blas_threads))
    return env


# Run in a shared kernel before each notebook: the notebook starts from an empty
# namespace, no open figure, pandas' display options as pandas sets them, in its
# own folder, and execution count 1 (so errors name the right cell); only the
# imported modules stay. What is left after the reset (the modules, their caches)
# is frozen out of the garbage collector's reach (gc.freeze): the reset's two full
# collections, and each full collection while a notebook runs, walked every object
# of pandas, scipy, statsmodels and matplotlib again (0.3 s per clear of a kernel
# that had run a study page). Frozen objects are still freed when no longer referred to.
CLEAR = ("get_ipython().run_line_magic('reset', '-f')\n"
         "import gc as _gc; _gc.freeze(); del _gc\n"
         "import matplotlib.pyplot as _plt; _plt.close('all'); del _plt\n"
         "import pandas as _pd; _pd.reset_option('^display\\\\.'); del _pd\n"
         "import os as _os; _os.chdir({folder!r}); del _os\n"
         "get_ipython().execution_count = 1")


class SharedKernel:
    """One kernel for the four notebooks of a campaign, started in ``folder``.

    Each notebook imported pandas, matplotlib, seaborn, scipy and statsmodels
    again in a new kernel: 4-5 s per notebook, a fifth of a cold build. The
    notebooks run one after the other, each on a cleared namespace (CLEAR), so
    none can lean on another's variables; each still runs alone in JupyterLab
    and under nbval, in a kernel of its own."""

    def __init__(self, folder: Path, blas_threads: int | None = None):
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        from analysis.report.ready_client import ReadyKernelClient

        kernels_use_this_library()
        self.manager = AsyncKernelManager(kernel_name="python3", client_factory=ReadyKernelClient)
        self._run = run_sync
        run_sync(self.manager.start_kernel)(cwd=str(folder), extra_arguments=KERNEL_QUIET,
                                            env=kernel_environment(blas_threads))

    def clear(self, folder: Path) -> None:
        """Clear the namespace (CLEAR) and move to ``folder``, the next notebook's."""
        async def clear() -> None:
            client = self.manager.client()
            client.start_channels()
            try:
                await client.wait_for_ready(timeout=120)
                reply = await client.execute_interactive(CLEAR.format(folder=str(folder)), store_history=False, timeout=120,
                                                         output_hook=lambda _msg: None)
                if reply["content"]["status"] != "ok":
                    raise ReportError(f"could not clear the shared kernel: {reply['content'].get('evalue')}")
            finally:
                client.stop_channels()

        self._run(clear)()

    def __enter__(self) -> "SharedKernel":
        return self

    def __exit__(self, *_exc) -> None:
        self.shutdown()

    def shutdown(self) -> None:
        """Stop the kernel (once; a second call does nothing)."""
        if self.manager.has_kernel:
            self._run(self.manager.shutdown_kernel)(now=True)


class KernelPool:
    """One kernel per worker thread of the report, kept from task to task.

    A kernel per campaign and per study page imported pandas, matplotlib,
    seaborn, scipy and this library again each time: 12 kernels in a cold
    build, about 4 s of CPU each. A thread runs its tasks one after the other
    in its own kernel (never shared between threads: jupyter_client's
    sockets belong to the thread that made them), each notebook cleared
    (CLEAR); a kernel whose notebook failed is shut down, not reused.
    ``blas_threads``: the threads each kernel's BLAS may start
    (:func:`blas_threads_per_kernel`)."""

    def __init__(self, blas_threads: int | None = None) -> None:
        self._blas_threads = blas_threads
        self._idle: dict[int, SharedKernel] = {}
        self._started: list[SharedKernel] = []
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def kernel(self) -> Iterator[SharedKernel]:
        thread = threading.get_ident()
        with self._lock:
            kernel = self._idle.pop(thread, None)
        if kernel is None:
            kernel = SharedKernel(NOTEBOOK_DIR, self._blas_threads)
            with self._lock:
                self._started.append(kernel)
        try:
            yield kernel
        except BaseException:
            kernel.shutdown()
            raise
        with self._lock:
            self._idle[thread] = kernel

    def close(self) -> None:
        """Shut every kernel down, also one still running a notebook (the build was stopped)."""
        with self._lock:
            kernels, self._started, self._idle = self._started, [], {}
        for kernel in kernels:
            kernel.shutdown()


@contextlib.contextmanager
def kernel_from(kernels: KernelPool | None) -> Iterator[SharedKernel]:
    """A kernel from ``kernels``, or one of its own (shut down after)."""
    if kernels is None:
        with SharedKernel(NOTEBOOK_DIR) as kernel:
            yield kernel
    else:
        with kernels.kernel() as kernel:
            yield kernel
