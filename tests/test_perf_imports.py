"""The core's modules import each other without cycles, lazy (function-level) imports included:
a cycle is two modules that can only be understood together. And `--version` imports nothing
it does not print."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import memshelf_render

PACKAGE = Path(memshelf_render.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            target = f"{base}.{node.module}" if node.level and node.module else (node.module or base)
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in _imports(path, name) if m in modules and m != name} for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle found by a depth-first walk (each reported once, from its smallest module)."""
    found: list[list[str]] = []
    for start in sorted(graph):
        stack = [(start, [start])]
        while stack:
            node, path = stack.pop()
            for nxt in sorted(graph[node]):
                if nxt == start:
                    found.append(path)
                elif nxt > start and nxt not in path:
                    stack.append((nxt, [*path, nxt]))
    return found


def test_the_graph_sees_lazy_imports():
    graph = import_graph()
    assert "memshelf_render.render.chart" in graph["memshelf_render.stats"]  # imported inside a function
    assert "memshelf_render.catalog" in graph["memshelf_render.findings"]


def test_no_import_cycles_in_the_core():
    assert cycles(import_graph()) == []


VERSION_SCRIPT = """
import sys
from bot.cli import main
code = main(["--version"])
heavy = sorted(m for m in ("argparse", "typing", "memshelf_render.cli", "bot.app.options") if m in sys.modules)
print(code, *heavy)
"""


def test_version_loads_nothing_but_the_version():
    """`memshelf-bot --version` prints before argparse, typing or any parser module is imported."""
    proc = subprocess.run([sys.executable, "-c", VERSION_SCRIPT], capture_output=True, text=True, check=True,
                          cwd=PACKAGE.parent)
    assert proc.stdout.splitlines() == [f"memshelf-bot {memshelf_render.__version__}", "0"]


def test_version_says_what_the_parser_says(capsys):
    from bot.cli import build, main

    with pytest.raises(SystemExit) as stop:
        build(["--version"]).parse_args(["--version"])
    assert stop.value.code == 0
    from_argparse = capsys.readouterr().out
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == from_argparse


FORK_FIRST_SCRIPT = """
import sys
import memshelf_render.commands.render
print(*sorted(m for m in ("memshelf_render.render", "memshelf_render.records", "memshelf_render.shelf", "yaml",
                          "multiprocessing", "matplotlib") if m in sys.modules))
"""


def test_the_chart_helper_forks_before_the_renderers_load():
    """`render` forks its chart helper before it imports the shelf model, the renderers or
    multiprocessing, so the helper starts small (its peak RSS is matplotlib's, not ours too)."""
    proc = subprocess.run([sys.executable, "-c", FORK_FIRST_SCRIPT], capture_output=True, text=True, check=True,
                          cwd=PACKAGE.parent)
    assert proc.stdout.split() == []


VALIDATE_SCRIPT = """
import sys
from memshelf_render.cli import build_parser
build_parser()
import memshelf_render.commands.validate, memshelf_render.validate, memshelf_render.report
print(*sorted(m for m in ("subprocess", "hashlib", "multiprocessing", "jsonschema", "matplotlib") if m in sys.modules))
"""


def test_validate_loads_no_module_it_does_not_use():
    """A validate run (the whole parser, every command registered) imports neither subprocess (git is the guard's), hashlib (SARIF's),
    multiprocessing (the executor forks bare), jsonschema (only for a config that fails the fast
    check) nor matplotlib: each costs milliseconds on every run, the small shelf's included."""
    proc = subprocess.run([sys.executable, "-c", VALIDATE_SCRIPT], capture_output=True, text=True, check=True,
                          cwd=PACKAGE.parent)
    assert proc.stdout.split() == []
