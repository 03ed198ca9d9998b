"""The channel escapers: nothing hostile survives as a command or a control sequence."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memshelf_render import escape


def _parse_property(value: str) -> str:
    return value.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def _parse_data(value: str) -> str:
    return value.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


@given(st.text())
def test_workflow_property_round_trips(text: str) -> None:
    out = escape.workflow_property(text)
    assert "\n" not in out and "\r" not in out and "," not in out and ":" not in out
    assert _parse_property(out) == text


@given(st.text())
def test_workflow_data_round_trips(text: str) -> None:
    out = escape.workflow_data(text)
    assert "\n" not in out and "\r" not in out
    assert _parse_data(out) == text


@given(st.text())
def test_log_line_is_one_inert_line(text: str) -> None:
    out = escape.log_line(text)
    assert out.splitlines() in ([out], [])
    assert not out.lstrip().startswith("::")
    assert "\x1b" not in out and "\r" not in out


def test_examples() -> None:
    assert escape.log_line("::warning title=pwned::x") == "\\x3a:warning title=pwned::x"
    assert escape.log_line("x\n::stop-commands::tok") == "x\\x0a::stop-commands::tok"
    assert escape.terminal("\x1b]0;t\x07\x1b[2J") == "\\x1b]0;t\\x07\\x1b[2J"
    assert escape.terminal("a\u202eb\udcff") == "a\\u202eb\\udcff"
    assert escape.terminal("tab\tok") == "tab\tok"
