"""The library and the bench stay apart: the bench imports the library, never the other way round."""

from __future__ import annotations

import ast
from pathlib import Path

import docling_evidence

LIBRARY = Path(docling_evidence.__file__).resolve().parent


def _imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_no_library_module_imports_the_bench() -> None:
    offenders = {
        str(path.relative_to(LIBRARY)): sorted(
            m for m in _imported_modules(path) if m.split(".")[0] == "docling_evidence_bench"
        )
        for path in sorted(LIBRARY.rglob("*.py"))
    }
    assert {name: mods for name, mods in offenders.items() if mods} == {}


def test_the_library_ships_no_benchmark_package() -> None:
    from importlib.metadata import metadata

    assert not (LIBRARY / "bench" / "__init__.py").exists()
    assert "bench" not in (metadata("docling-evidence").get_all("Provides-Extra") or [])
