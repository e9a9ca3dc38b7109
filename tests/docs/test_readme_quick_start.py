"""The README is a quick start: its first lines are the two commands a newcomer needs; every command it names exists."""

from __future__ import annotations

import importlib
import re

from typer.main import get_command

from docs.blocks import REPO, fenced_blocks

README = REPO / "README.md"
MAX_LINES = 150
"""A quick start fits on a few screens; the rules, measurements and caveats live in docs/."""


def _text() -> str:
    return README.read_text(encoding="utf-8")


def _console_scripts() -> dict[str, str]:
    """Console script -> its ``module:function``, for every distribution of the repository (the library, the bench)."""
    scripts: dict[str, str] = {}
    for pyproject in (REPO / "pyproject.toml", *REPO.glob("*/pyproject.toml")):
        text = pyproject.read_text(encoding="utf-8")
        section = re.search(r"^\[project\.scripts\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
        if section:
            scripts |= dict(re.findall(r'^([\w-]+)\s*=\s*"([\w.:]+)"', section[1], re.M))
    return scripts


def _subcommands(entry_point: str) -> set[str]:
    """The sub-commands of the Typer app in the entry point's module."""
    app = importlib.import_module(entry_point.split(":")[0]).app
    return set(get_command(app).commands)  # type: ignore[attr-defined]


def test_readme_is_short() -> None:
    assert len(_text().splitlines()) <= MAX_LINES


def test_the_two_commands_come_first() -> None:
    """Before any section: one line that installs and runs the bundled example, one that installs and runs the tests."""
    text = _text()
    first_block = fenced_blocks(text, "bash")[0]
    assert text.index(first_block) < text.index("\n## ")
    run, test = first_block.splitlines()
    assert "pip install -c constraints.txt" in run and "docling-evidence chunk docling_evidence/examples/" in run
    assert "pip install -c constraints.txt" in test and test.endswith("python -m pytest")


def test_local_installs_are_distributions() -> None:
    """Each `-e ./DIR` the README installs is a folder with a pyproject.toml."""
    folders = re.findall(r"-e \./([\w-]+)", _text())
    assert folders, "the test install no longer installs the local distributions"
    for folder in folders:
        assert (REPO / folder / "pyproject.toml").is_file(), folder


def test_commands_are_declared_console_scripts() -> None:
    """Every command line of the README's shell blocks runs a script a distribution here declares, and a sub-command
    that script has (the benchmark is ``docling-evidence-bench targets``; the library's command has no ``bench``)."""
    scripts = _console_scripts()
    commands = [
        line.split()[:2]
        for block in fenced_blocks(_text(), "bash")
        for line in block.splitlines()
        if line.startswith("docling-evidence")
    ]
    assert commands, "the README shows no command"
    for script, sub in commands:
        assert script in scripts, script
        assert sub in _subcommands(scripts[script]), f"{script} {sub}"


def test_example_path_exists() -> None:
    assert (REPO / "docling_evidence" / "examples" / "annual_report.html").is_file()
