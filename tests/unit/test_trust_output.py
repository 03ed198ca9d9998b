"""Every report format carries arbitrary text (paths, messages) as exactly what the bot meant:
github output parses back to the bot's commands and nothing else, text output never starts a
command or carries a control, JSON and SARIF round-trip the path itself (lone surrogates too)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memshelf_render import escape
from memshelf_render.catalog import RULES
from memshelf_render.findings import Finding
from memshelf_render.report import as_github, as_json, as_sarif, as_text
from memshelf_render.validate import Report
from tests.unit.test_hostile_core import COMMAND, parse_command

ANY_TEXT = st.text(alphabet=st.characters(blacklist_categories=()), max_size=40)  # surrogates included
CODES = sorted(RULES)
FINDING = st.builds(lambda code, path, line, message: Finding(code, path, line, message),
                    st.sampled_from(CODES), ANY_TEXT.filter(bool), st.one_of(st.none(), st.integers(1, 10**6)),
                    ANY_TEXT)


def _report(findings: list[Finding]) -> Report:
    return Report(Path("."), findings=findings)


def _render(write, report: Report) -> str:
    out = io.StringIO()
    write(report, out)
    return out.getvalue()


@settings(max_examples=300, deadline=None)
@given(st.lists(FINDING, max_size=6))
def test_github_output_parses_back_as_exactly_the_bots_lines(findings: list[Finding]) -> None:
    lines = _render(as_github.write, _report(findings)).split("\n")
    assert lines[-1] == ""
    *commands, summary, _ = lines
    assert len(commands) == len(findings)
    assert not summary.lstrip().startswith("::") and summary.startswith("memshelf-bot: ")
    for line, f in zip(commands, findings, strict=True):
        assert COMMAND.match(line)
        level, props, data = parse_command(line)
        assert level == as_github.LEVEL[f.severity.value]
        assert props["file"] == escape.terminal(f.path)
        assert props.get("line") == (str(f.line) if f.line else None)
        assert props["title"] == f"memshelf-bot: {f.code}"
        assert data == escape.multiline_terminal(f"{f.message}\nfix: {f.rule.fix}")


@settings(max_examples=300, deadline=None)
@given(st.lists(FINDING, max_size=6))
def test_text_output_is_two_inert_lines_per_finding(findings: list[Finding]) -> None:
    text = _render(as_text.write, _report(findings))
    lines = text.split("\n")
    assert len(lines) == 2 * len(findings) + 2 and lines[-1] == ""
    for line in lines:
        assert escape.terminal(line) == line
        assert not line.lstrip().startswith("::")
    text.encode("utf-8")  # no lone surrogate left to fail a strict stdout


@settings(max_examples=300, deadline=None)
@given(st.lists(FINDING, max_size=6))
def test_json_and_sarif_round_trip_the_path_and_show_no_control(findings: list[Finding]) -> None:
    report = _report(findings)
    for write in (as_json.write, as_sarif.write):
        document = _render(write, report)
        document.encode("utf-8")
        assert all(escape.terminal(line) == line for line in document.split("\n"))
        data = json.loads(document)
        if write is as_json.write:
            assert [f["path"] for f in data["findings"]] == [f.path for f in findings]
            assert [f["message"] for f in data["findings"]] == [f.message for f in findings]
        else:
            uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in data["runs"][0]["results"]]
            assert uris == [f.path for f in findings]
