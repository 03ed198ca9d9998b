"""The layers hold: import-linter's contracts (pyproject.toml: the core never imports the bot,
the sandbox or PyGithub; the core's domain never imports its command line; the bot never imports
the sandbox; reporters never import flows, the router or a front door; flows reach GitHub only
through the port; flows and the router never know their door, the Action's or the App's; the App
never imports the Action runtime), and no import cycle inside `bot`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parent.parent
LINTER = Path(sys.executable).parent / "lint-imports"
DOMAIN_CONTRACT = "the domain never imports the command line"
COMMAND_LINE = ("cli", "commands")


def test_the_import_contracts_are_kept() -> None:
    proc = subprocess.run([str(LINTER), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "0 broken" in proc.stdout


def _domain_contract() -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return next(c for c in config["tool"]["importlinter"]["contracts"] if c["name"] == DOMAIN_CONTRACT)


def test_the_domain_is_every_module_of_the_core_but_its_command_line() -> None:
    """The contract names the domain module by module (import-linter cannot say "the core but
    these two"), so a module added to the core must join the list: this keeps them equal."""
    core = ROOT / "memshelf_render"
    modules = {p.stem for p in core.glob("*.py")} | {p.parent.name for p in core.glob("*/__init__.py")}
    domain = {f"memshelf_render.{m}" for m in modules - {"__init__", *COMMAND_LINE}}
    contract = _domain_contract()
    assert set(contract["source_modules"]) == domain
    assert set(contract["forbidden_modules"]) == {f"memshelf_render.{m}" for m in COMMAND_LINE}


def test_the_domain_contract_breaks_when_a_rule_imports_a_command(tmp_path: Path) -> None:
    """The contract can fail: in a copy of the core where the stats module takes a printing helper
    from the command layer, as it once did, import-linter reports the contract broken."""
    copy = tmp_path / "memshelf_render"
    shutil.copytree(ROOT / "memshelf_render", copy, ignore=shutil.ignore_patterns("__pycache__"))
    stats = copy / "stats.py"
    stats.write_text(stats.read_text(encoding="utf-8") + "\nfrom .commands.console import load_for_command\n",
                     encoding="utf-8")
    contract = _domain_contract()

    def listed(modules: list[str]) -> str:
        return "".join(f"\n    {m}" for m in sorted(modules))

    (tmp_path / ".importlinter").write_text(
        f"[importlinter]\nroot_package = memshelf_render\n\n[importlinter:contract:domain]\n"
        f"name = {DOMAIN_CONTRACT}\ntype = forbidden\nsource_modules ={listed(contract['source_modules'])}\n"
        f"forbidden_modules ={listed(contract['forbidden_modules'])}\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([str(LINTER), "--no-cache"], cwd=tmp_path, capture_output=True, text=True, env=env,
                          check=False)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert "memshelf_render.stats -> memshelf_render.commands.console" in proc.stdout


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each one an import cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module) & modules:
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == module:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(modules):
        if module not in index:
            visit(module)
    return found


def test_bot_has_no_import_cycle() -> None:
    graph = grimp.build_graph("bot", cache_dir=None)
    assert cycles(graph, set(graph.modules)) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.a")
    graph.add_import(importer="p.c", imported="p.a")
    assert cycles(graph, set(graph.modules)) == [["p.a", "p.b"]]
