"""No import cycle between the modules of ``docling_evidence``.

The graph is read from the source with ``ast``: every ``import docling_evidence.X`` and ``from docling_evidence.X
import ...`` at module level and inside functions and classes (an import inside a function runs later, but a cycle
through it still ties the two modules together). Imports under ``if TYPE_CHECKING:`` never run and are left out.
Importing ``a.b.c`` runs the ``__init__`` of ``a`` and ``a.b`` first, so an edge goes to those packages too, except
from a module inside them: a package's own modules always run after its ``__init__`` has started, so a package that
re-exports its modules is no cycle.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = "docling_evidence"
ROOT = Path(__file__).resolve().parents[2] / PACKAGE


def module_name(path: Path, root: Path = ROOT) -> str:
    """The dotted name of a module file under ``root`` (a package is its ``__init__``)."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, current: str, is_package: bool) -> Iterator[str]:
    """The package modules imported anywhere under ``node``, outside ``if TYPE_CHECKING:`` blocks."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield from _imports(ast.Module(body=[other], type_ignores=[]), current, is_package)
            continue
        if isinstance(child, ast.Import):
            yield from (alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = _absolute(child, current, is_package)
            if base is not None:
                yield base
                # "from docling_evidence.cite import check" imports the module docling_evidence.cite.check
                yield from (f"{base}.{alias.name}" for alias in child.names)
        else:
            yield from _imports(child, current, is_package)


def _absolute(node: ast.ImportFrom, current: str, is_package: bool) -> str | None:
    if not node.level:
        return node.module
    parts = current.split(".")
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each module of the package and the package modules (and their parent packages) it imports."""
    files = {module_name(p, root): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        targets: set[str] = set()
        for imported in _imports(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py"):
            parts = imported.split(".")
            targets.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
        own_packages = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        graph[name] = {t for t in targets if t in files and t != name and t not in own_packages}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    cycles: list[frozenset[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            step = next(successors, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    cycles.append(frozenset(component))
    return cycles


def _describe(cycles: list[frozenset[str]]) -> str:
    return "; ".join(" <-> ".join(sorted(c)) for c in cycles)


def test_the_graph_sees_imports_at_module_level_inside_functions_and_through_packages() -> None:
    graph = import_graph()
    assert "docling_evidence.tables.rows" in graph["docling_evidence.cite.sources"]  # module level
    assert "docling_evidence.document.convert" in graph["docling_evidence.cite.check"]  # inside check_file
    assert "docling_evidence.cite" in graph["docling_evidence.pack.evidence"]  # the package whose __init__ runs
    assert "docling_evidence.cite.check" not in graph["docling_evidence.cite"]  # TYPE_CHECKING only
    assert "docling_evidence.cite" not in graph["docling_evidence.cite.check"]  # its own package


def test_cycle_finder_reports_each_cycle_once_not_the_modules_leading_into_it() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a", "e"}, "e": {"d"}, "f": {"a"}}
    assert sorted(map(sorted, import_cycles(graph))) == [["a", "b", "c"], ["d", "e"]]
    assert import_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_a_cycle_through_a_function_level_import_is_found(tmp_path: Path) -> None:
    package = tmp_path / PACKAGE
    (package / "low").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "low" / "__init__.py").write_text("")
    (package / "low" / "convert.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from docling_evidence import top\n"
        "def chunk():\n    from docling_evidence.top import Chunker\n"
    )
    (package / "top.py").write_text("from docling_evidence.low.convert import chunk\n")
    assert import_cycles(import_graph(package)) == [frozenset({"docling_evidence.low.convert", "docling_evidence.top"})]


def test_no_import_cycle_between_modules() -> None:
    cycles = import_cycles(import_graph())
    assert not cycles, f"import cycles: {_describe(cycles)}"
