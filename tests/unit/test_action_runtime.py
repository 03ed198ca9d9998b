"""The Action's runtime pieces on their own: inputs, outputs, the summary cap, annotations and
their limit, masks, `safe.directory`, and the GitHub adapter's wait-and-retry policy."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from github import GithubException, RateLimitExceededException

from bot.adapters import pygithub as gh
from bot.context import trust_workspace
from bot.inputs import InputError, read
from bot.job import Workspace
from bot.port import PortError, Reason
from bot.report import Level, Note
from bot.report.workflow import SUMMARY_LIMIT, WorkflowReporter, fit_summary
from memshelf_render.shelf import Settings
from memshelf_sandbox.actionrun import parse_commands, parse_outputs

# inputs ----------------------------------------------------------------------------------------


def test_inputs_override_settings_only_when_given() -> None:
    given = read({"INPUT_MODE": "render", "INPUT_TOKEN": "t", "INPUT_STRICT": "TRUE", "INPUT_BADGE": "",
                  "INPUT_ALLOW_PATHS": "README.md, docs/extra/**\nLICENSE\n", "INPUT_COMMENT": "never",
                  "INPUT_SHELF_PATH": "./memory/", "PATH": "/bin"})
    assert (given.mode, given.token, given.shelf_path) == ("render", "t", "memory")
    settings = Workspace(Path("."), "", overrides=given.overrides).apply(Settings(badge=True, strict=False,
                                                                                   allow_paths=("x",)))
    assert settings.strict is True and settings.badge is True  # empty input: the shelf's own value stays
    assert settings.allow_paths == ("README.md", "docs/extra/**", "LICENSE") and settings.comment == "never"
    assert read({}).mode == "auto" and read({}).overrides == {}


@pytest.mark.parametrize("env, message", [
    ({"INPUT_SHELF-PATH": "x", "INPUT_COLOUR": "red"}, "unknown input(s): colour, shelf-path;"),
    ({"INPUT_MODE": "rebase"}, "input 'mode' must be one of auto, validate, render, guard, open-pr, resolve, "
                               "badge, got 'rebase'"),
    ({"INPUT_AUTO_MERGE": "1"}, "input 'auto_merge' must be true or false, got '1'"),
    ({"INPUT_COMMENT": "loud"}, "input 'comment' must be one of auto, always, never, got 'loud'"),
    ({"INPUT_SHELF_PATH": "/abs"}, "input 'shelf_path' must be a path inside the workspace, got '/abs'"),
    ({"INPUT_SHELF_PATH": "a/../../b"}, "input 'shelf_path' must be a path inside the workspace"),
])
def test_bad_inputs_are_refused_with_a_message(env: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as refused:
        read(env)
    assert str(refused.value).startswith(message)


# outputs, summary, annotations, masks ------------------------------------------------------------


def test_outputs_use_fresh_random_heredoc_delimiters(tmp_path: Path) -> None:
    path = tmp_path / "out"
    runner = WorkflowReporter(out=io.StringIO(), output_path=str(path))
    runner.set_output("verdict", "valid")
    runner.set_output("notes", "two\nlines\nEOF\nghadelimiter_x")
    runner.set_output("empty", None)
    runner.write_outputs()
    text = path.read_text()
    delimiters = [line.split("<<", 1)[1] for line in text.split("\n") if "<<" in line]
    assert len(delimiters) == 3 and len(set(delimiters)) == 3
    assert all(d.startswith("ghadelimiter_") and len(d) > 40 for d in delimiters)
    assert parse_outputs(text) == {"verdict": "valid", "notes": "two\nlines\nEOF\nghadelimiter_x", "empty": ""}


def test_the_summary_is_cut_under_1_mib_at_a_line_with_a_visible_note() -> None:
    small = "# title\nline\n"
    assert fit_summary(small) == small
    big = "".join(f"| row {i} | ünïcödé ✅ |\n" for i in range(60_000))
    fitted = fit_summary(big)
    assert len(fitted.encode()) <= SUMMARY_LIMIT
    head, note = fitted.split("\n\n> [!WARNING]\n", 1)
    assert head.endswith(" |\n") and big.startswith(head)  # cut after a whole line
    assert note.startswith("> **This summary was truncated**: ")
    assert f"{len(big.encode()) - len(head.encode()):,} bytes are not shown" in note


def test_annotations_past_ten_per_type_are_kept_for_the_summary() -> None:
    out = io.StringIO()
    runner = WorkflowReporter(out=out)
    for i in range(12):
        runner.annotate(Note(Level.ERROR, "a.md", i + 1, "t", f"e{i}"))
    for i in range(3):
        runner.annotate(Note(Level.WARNING, "a.md", None, "t", f"w{i}"))
    annotations, _ = parse_commands(out.getvalue())
    assert [a.message for a in annotations] == [f"e{i}" for i in range(10)] + ["w0", "w1", "w2"]
    assert [(n.level, n.message) for n in runner.cut] == [("error", "e10"), ("error", "e11")]


def test_secrets_are_masked_in_everything_the_runner_writes() -> None:
    out = io.StringIO()
    runner = WorkflowReporter(out=out)
    runner.add_secret("ghs_tokenvalue")
    runner.add_secret("ghs_tokenvalue")  # once is enough
    runner.log("token ghs_tokenvalue and AKIAABCDEFGHIJKLMNOP")
    runner.annotate(Note(Level.ERROR, None, None, "t", "Bearer abcdefghijklmnopqrstuvwxyz"))
    runner.set_output("x", "ghs_tokenvalue")
    text = out.getvalue()
    assert text.count("::add-mask::ghs_tokenvalue") == 1
    assert "token *** and «redacted:aws-access-key»" in text and "«redacted:bearer»" in text
    assert runner.outputs["x"] == "***"
    annotations, masks = parse_commands(text)
    assert [a.message for a in annotations] == ["«redacted:bearer»"] and masks == ["ghs_tokenvalue"]


def test_the_workspace_becomes_a_safe_git_directory_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    reporter = WorkflowReporter(out=io.StringIO())
    trust_workspace(Path("/github/workspace"), reporter)
    trust_workspace(Path("/github/workspace"), reporter)
    listed = subprocess.run(["git", "config", "--global", "--get-all", "safe.directory"], capture_output=True,
                            text=True, check=True).stdout.split()
    assert listed == ["/github/workspace"]


def test_outside_the_container_the_global_git_config_is_left_alone(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    trust_workspace(tmp_path / "checkout", WorkflowReporter(out=io.StringIO()))
    assert not (tmp_path / ".gitconfig").exists()


# the GitHub adapter's policy --------------------------------------------------------------------


def client(waits: list[float]) -> gh.PyGithubPort:
    return gh.PyGithubPort("t", "http://127.0.0.1:9", "octo/shelf", sleep=waits.append)


def flaky(*failures: GithubException):
    queue = list(failures)

    def fn() -> str:
        if queue:
            raise queue.pop(0)
        return "done"
    return fn


def test_rate_limits_wait_as_github_asks_and_are_recorded() -> None:
    slept: list[float] = []
    c = client(slept)
    limited = GithubException(429, {"message": "slow down"}, {"Retry-After": "7"})
    secondary = RateLimitExceededException(403, {"message": "You have exceeded a secondary rate limit."},
                                           {"retry-after": "3"})
    assert c.call("list files", flaky(limited, secondary)) == "done"
    assert slept == [7.0, 3.0]
    assert [(w.what, w.reason, w.seconds) for w in c.waits] == [("list files", "rate limit 429", 7.0),
                                                               ("list files", "rate limit 403", 3.0)]


def test_a_primary_limit_waits_until_reset_and_too_long_a_wait_gives_up() -> None:
    exc = GithubException(403, {"message": "API rate limit exceeded"},
                          {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1000"})
    assert gh.rate_limit_wait(exc, now=900) == 100
    assert gh.rate_limit_wait(GithubException(403, {"message": "Forbidden"}, {}), now=0) is None
    slept: list[float] = []
    with pytest.raises(PortError, match="asks for a 3600 s wait") as refused:
        client(slept).call("x", flaky(GithubException(429, {}, {"Retry-After": "3600"})))
    assert refused.value.reason is Reason.RATE_LIMITED
    assert slept == []


def test_server_errors_back_off_and_then_give_up() -> None:
    slept: list[float] = []
    c = client(slept)
    assert c.call("read", flaky(GithubException(502, {}, {}), GithubException(503, {}, {}))) == "done"
    assert len(slept) == 2 and 0.5 <= slept[0] <= 1.0 and 1.0 <= slept[1] <= 2.0
    errors = [GithubException(500, {}, {}) for _ in range(gh.MAX_RETRIES + 1)]
    with pytest.raises(PortError, match="GitHub answered 500 5 times") as refused:
        c.call("read", flaky(*errors))
    assert refused.value.reason is Reason.UNAVAILABLE


def test_a_read_only_refusal_is_typed_and_marks_the_port() -> None:
    c = client([])
    refused = GithubException(403, {"message": "Resource not accessible by integration"}, {})
    with pytest.raises(PortError) as read_only:
        c.call("comment", flaky(refused))
    assert read_only.value.reason is Reason.READ_ONLY and c.read_only is True
    with pytest.raises(PortError) as later:  # every later write is refused without a request
        c._write("comment", flaky())
    assert later.value.reason is Reason.READ_ONLY


@pytest.mark.parametrize("status, message, reason", [
    (404, "Not Found", Reason.NOT_FOUND),
    (422, "Update is not a fast forward", Reason.NON_FAST_FORWARD),
    (422, "Protected branch update failed for refs/heads/main.", Reason.PROTECTED),
    (409, "Required status check \"ci\" is expected.", Reason.PROTECTED),
    (422, "Repository rule violations found\n\nGH013", Reason.RULESET),
    (422, "A pull request already exists for octo:x.", Reason.ALREADY_EXISTS),
    (422, "Validation Failed", Reason.INVALID),
    (401, "Bad credentials", Reason.FORBIDDEN),
])
def test_refusals_leave_the_adapter_as_typed_reasons(status: int, message: str, reason: Reason) -> None:
    with pytest.raises(PortError) as refused:
        client([]).call("x", flaky(GithubException(status, {"message": message}, {})))
    assert refused.value.reason is reason and refused.value.status == status and message in refused.value.detail


def test_writes_are_spaced_as_github_advises_unless_the_environment_says_otherwise(tmp_path: Path) -> None:
    from bot.context import ContextError, build
    from bot.inputs import Inputs

    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_REPOSITORY": "octo/shelf", "GITHUB_WORKSPACE": str(tmp_path)}

    def spacing(extra: dict[str, str]) -> float | None:
        job = build({**env, **extra}, Inputs(), WorkflowReporter(out=io.StringIO()))
        return job.port.write_spacing  # the lazy port makes the adapter on this first use

    assert spacing({}) == gh.WRITE_SPACING == 0.25
    assert spacing({"MEMSHELF_BOT_WRITE_SPACING": "0"}) == 0.0
    assert spacing({"MEMSHELF_BOT_WRITE_SPACING": " 1.5 "}) == 1.5
    for bad in ("soon", "-1", "61", "nan"):
        with pytest.raises(ContextError, match="MEMSHELF_BOT_WRITE_SPACING must be a number of seconds from 0 to 60"):
            spacing({"MEMSHELF_BOT_WRITE_SPACING": bad})


def test_the_action_imports_pygithub_only_when_it_calls_github() -> None:
    """The door imports validate's flow; the router (every flow), the GitHub sinks, PyGithub and
    the HTTP stack come with the modes that use them."""
    probe = ("import sys, bot.action; print(*(m for m in ('github', 'bot.router', 'bot.report.comment', 'ssl') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.split() == []


JOB_PROBE = """
import io, sys
from bot.context import build
from bot.inputs import Inputs
from bot.report.workflow import WorkflowReporter
env = {"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "octo/shelf", "GITHUB_WORKSPACE": sys.argv[1]}
job = build(env, Inputs(), WorkflowReporter(out=io.StringIO()))
print(list(job.port.waits), "github" in sys.modules)
"""


def test_a_job_that_never_calls_github_never_imports_pygithub(tmp_path: Path) -> None:
    """`mode: validate` builds a job (the default write spacing) and ends with a summary that lists
    the port's rate-limit waits: neither may make the adapter, whose PyGithub import was most of
    the Action's start-up."""
    out = subprocess.run([sys.executable, "-c", JOB_PROBE, str(tmp_path)], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["[]", "False"]


def test_no_token_where_the_flow_must_write_is_a_configuration_error_naming_the_input(tmp_path: Path) -> None:
    from bot import action

    event = tmp_path / "event.json"
    event.write_text('{"ref": "refs/heads/main", "repository": {"default_branch": "main"}}')
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": "octo/shelf",
           "GITHUB_WORKSPACE": str(tmp_path), "GITHUB_OUTPUT": str(tmp_path / "out")}
    out = io.StringIO()
    assert action.run(env, WorkflowReporter.from_env(env, out)) == 2
    assert "input 'token' is empty" in out.getvalue()
    assert parse_outputs((tmp_path / "out").read_text())["verdict"] == "config-error"
    local = {**env, "INPUT_MODE": "validate"}
    assert "input 'token'" not in _run_quietly(action, local)


def _run_quietly(action, env: dict[str, str]) -> str:
    out = io.StringIO()
    action.run(env, WorkflowReporter.from_env(env, out))
    return out.getvalue()


def test_log_lines_never_start_a_workflow_command_and_annotation_fields_round_trip() -> None:
    out = io.StringIO()
    reporter = WorkflowReporter(out=out)
    reporter.log("::warning title=pwned::x\n  ::stop-commands::tok\x1b[2J")
    reporter.annotate(Note(Level.ERROR, "docs/a,b:c%.md", 3, "t:1,2", "line one\nline two %0A"))
    lines = out.getvalue().split("\n")
    assert not any(line.lstrip().startswith(("::warning", "::stop-commands")) for line in lines)
    assert "\x1b" not in out.getvalue()
    annotations, _ = parse_commands(out.getvalue())
    [a] = annotations
    assert (a.file, a.line, a.title, a.message) == ("docs/a,b:c%.md", 3, "t:1,2", "line one\nline two %0A")
