"""What only a front door may do, no flow does: mark the port read-only (a property of the Action's
fork token, never of the flow: the App's fork pull requests hung on it), write step outputs, or
read the environment. Found in the flows' and reporters' source, so a new flow cannot bring it
back unseen (the import contracts keep the doors' modules out; this keeps their acts out)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOOR_ONLY = {"mark_read_only", "set_output", "write_outputs", "environ", "getenv"}
SOURCES = sorted([*(ROOT / "bot" / "flows").glob("*.py"), *(ROOT / "bot" / "report").glob("*.py"),
                  ROOT / "bot" / "router.py"])


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_flow_or_reporter_does_a_doors_work(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    used = {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    used |= {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert used & DOOR_ONLY == set()
