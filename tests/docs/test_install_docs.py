"""What the README and constraints.txt say about torch is what pip does: the pin alone is not the CPU wheel."""

from __future__ import annotations

import re

from docs.blocks import REPO

CPU_INDEX = "--index-url https://download.pytorch.org/whl/cpu"
PIN = re.compile(r"^torch==(?P<version>[\w.]+)$", re.M)


def _text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def _flat(text: str) -> str:
    """White space (line breaks inside a sentence) as single blanks."""
    return " ".join(text.split())


def test_constraints_pin_torch_and_say_how_to_get_the_cpu_wheel() -> None:
    text = _text("constraints.txt")
    assert PIN.search(text), "constraints.txt no longer pins torch"
    comments = "\n".join(line for line in text.splitlines() if line.startswith("#"))
    assert f"pip install -c constraints.txt torch {CPU_INDEX}" in comments
    assert "is the CPU wheel" not in _flat(comments)  # from PyPI the pinned version is the CUDA build


def test_readme_says_how_to_get_the_cpu_wheel() -> None:
    readme = _text("README.md")
    assert f"pip install -c constraints.txt torch {CPU_INDEX}" in readme
    assert "pins torch to the CPU wheel" not in _flat(readme)
    assert "pdf" in readme.split(CPU_INDEX, 1)[0].rsplit("\n\n", 1)[-1]  # the paragraph says which extras need it


def test_integrations_install_gives_the_cpu_index() -> None:
    text = _text("docs/integrations.md")
    assert f"pip install torch {CPU_INDEX}" in text
    assert "or a constraints file pinning it" not in _flat(text)


def test_ci_installs_with_the_constraints() -> None:
    assert "-c constraints.txt" in _text(".ci/run")
