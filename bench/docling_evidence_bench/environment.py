"""Where and with what a measurement ran: the one ``environment()`` every benchmark records (standard library only)."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES: tuple[str, ...] = (
    "docling-core",
    "docling-evidence",
    "sentence-transformers",
    "torch",
    "transformers",
    "bm25s",
    "numpy",
)
"""Package versions recorded by default."""

_REPO = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str:
    try:
        proc = subprocess.run(["git", "-C", str(_REPO), *args], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    return proc.stdout.strip() if proc.returncode == 0 else ""


def environment(packages: Sequence[str] = PACKAGES) -> dict[str, Any]:
    """Python, platform, CPUs, load, package versions, and the git commit of the code that ran.

    ``git_commit`` is None outside a git checkout, unless ``DOCLING_EVIDENCE_GIT_COMMIT`` names the commit an
    exported tree (``git archive``) was made from; ``package_uncommitted`` lists files under ``docling_evidence/``
    that differ from that commit (so a number measured on uncommitted code says so). ``torch_threads`` is read only
    when torch is already imported (recording the environment never imports torch).
    """
    versions: dict[str, str | None] = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    torch = sys.modules.get("torch")
    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = None
    status = _git("status", "--porcelain", "--", "docling_evidence")
    return {
        "git_commit": _git("rev-parse", "HEAD") or os.environ.get("DOCLING_EVIDENCE_GIT_COMMIT") or None,
        # porcelain lines are "XY path"; the first one lost its leading blank to the strip of the whole output
        "package_uncommitted": [line.split(maxsplit=1)[-1] for line in status.splitlines() if line.strip()],
        "date_utc": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": load,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
        "packages": versions,
    }
