"""The distribution as a user installs it: every command the CLI lists is importable, the sandbox
package joins only through its entry point, and `pip install .[sandbox]` in a fresh virtualenv
runs the demo."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from importlib import import_module
from pathlib import Path

from bot.cli import build
from tests.e2e.test_demo import check_story

ROOT = Path(__file__).resolve().parents[2]


def _handlers(parser: argparse.ArgumentParser) -> dict[str, str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {name: p.get_default("handler") for name, p in sub.choices.items()}


def test_every_listed_command_has_a_handler_that_imports() -> None:
    handlers = _handlers(build())
    assert {"validate", "render", "guard", "resolve", "stats", "badge", "action", "demo", "sandbox"} <= set(handlers)
    for name, handler in handlers.items():
        assert isinstance(handler, str) and ":" in handler, name
        module, _, func = handler.partition(":")
        assert callable(getattr(import_module(module), func)), f"{name}: {handler}"


def test_the_sandbox_joins_through_its_entry_point_only() -> None:
    handlers = _handlers(build())
    assert handlers["demo"] == "memshelf_sandbox.demo:cli_main"
    assert handlers["sandbox"] == "memshelf_sandbox.server:cli_main"
    for path in [*ROOT.joinpath("bot").rglob("*.py"), *ROOT.joinpath("memshelf_render").rglob("*.py")]:
        assert "memshelf_sandbox" not in path.read_text(encoding="utf-8"), path


def test_a_fresh_install_with_the_extra_runs_the_demo(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # --no-compile: byte-compiling every installed module (numpy, matplotlib…) is a third of the
    # install's CPU and not what is tested; the demo compiles what it imports
    install = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-compile",
                              f"{ROOT}[sandbox]"], capture_output=True, text=True, env=env, cwd=tmp_path,
                             check=False)
    assert install.returncode == 0, install.stderr[-3000:]
    assert "License classifiers are deprecated" not in install.stderr
    demo = subprocess.run([str(venv / "bin" / "memshelf-bot"), "demo"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=300, check=False)
    assert demo.returncode == 0, (demo.stdout[-2000:], demo.stderr[-2000:])
    check_story(demo.stdout)
    # `setup` posts the committed manifest: it must be in the installed package, not only in a checkout
    found = subprocess.run([str(py), "-c", "from bot.app.setup import MANIFEST; print(MANIFEST.is_file())"],
                           capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert found.stdout.strip() == "True", found.stderr[-2000:]


def test_without_the_extra_the_sandbox_commands_say_how_to_get_it() -> None:
    """An interpreter that cannot import the sandbox's validator: one line, exit 2."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    # hide the validator from this interpreter only
    code = ("import sys, importlib.abc\n"
            "class Hide(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] == 'openapi_schema_validator':\n"
            "            raise ModuleNotFoundError(name)\n"
            "sys.meta_path.insert(0, Hide())\n"
            "from bot.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    for command in ("demo", "sandbox"):
        proc = subprocess.run([sys.executable, "-c", code, command, "--repo", "x"], capture_output=True,
                              text=True, env=env, cwd=ROOT, check=False)
        assert proc.returncode == 2
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and "pip install 'memshelf-bot[sandbox]'" in lines[0], proc.stderr
