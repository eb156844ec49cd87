"""Root conftest: nbval starts the notebooks' kernels in notebooks/, where a
relative PYTHONPATH=src finds nothing and the kernel would import whatever
``analysis`` the environment has installed (another checkout's). Put this
checkout's src/ first, as an absolute path, before any kernel starts."""

import os
from pathlib import Path

SRC = str(Path(__file__).resolve().parent / "src")
_rest = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != SRC]
os.environ["PYTHONPATH"] = os.pathsep.join([SRC, *_rest])
