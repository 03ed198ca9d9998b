"""The render-on-main flow end to end: latest main, Git Data API commit as the bot, fast-forward
only, retries on a lost race, the render PR when main is protected, no render of a render."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from bot import action
from bot.report.workflow import WorkflowReporter
from memshelf_render.derived import is_derived
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from tests import action_harness
from tests.action_harness import BOT_TOKEN, REPO, Harness, episode
from tests.sandbox_fixtures import push_event, workflow_dispatch_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

UPS = "docs/topics/2026-09-22-ups-runtime.md"
NAS = "docs/topics/2026-09-23-nas-move.md"
MESSAGE = "memshelf-bot: render derived files [skip ci]"


def merged(h: Harness, branch: str, files: dict[str, str]) -> tuple[str, str]:
    return h.merge(h.open_pr(branch, files))


def git_writes(h: Harness, since: int = 0) -> list[tuple[str, str, int]]:
    return [(m, p.split("/repos/octo/shelf")[1], s) for m, p, s in h.api_calls(since) if m != "GET"]


def changed_paths(h: Harness, sha: str) -> list[str]:
    info = h.sb.store.commit(sha)
    return sorted(c.filename for c in h.sb.store.diff(info.parents[0], sha))


@pytest.mark.real_step  # push on the real `python -m bot.cli action`
def test_a_merge_is_rendered_and_committed_as_the_bot_fast_forward_only(harness: Harness, tmp_path: Path) -> None:
    before, after = merged(harness, "shelve/ups", {UPS: episode("2026-09-22-ups-runtime")})
    mark = len(harness.sb.calls)
    result = harness.push_step(before, after)

    assert result.exit_code == 0, result.stdout + result.stderr
    main = harness.sb.store.ref("refs/heads/main")
    commit = harness.sb.store.commit(main)
    assert commit.parents == (after,) and commit.message == MESSAGE
    assert (commit.author.name, commit.author.email) == (
        "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")
    assert changed_paths(harness, main) == ["INDEX.md", "docs/topics/.meta.json", "ledger.tsv", "stats.svg"]
    assert [(m, p) for m, p, _ in harness.api_calls(mark)] == [
        ("GET", "/repos/octo/shelf/git/ref/heads/main"), ("GET", f"/repos/octo/shelf/git/commits/{after}"),
        ("GET", f"/repos/octo/shelf/git/trees/{harness.sb.store.commit(after).tree}"),
        ("POST", "/repos/octo/shelf/git/trees"), ("POST", "/repos/octo/shelf/git/commits"),
        ("PATCH", "/repos/octo/shelf/git/refs/heads/main"),
        ("GET", "/repos/octo/shelf/pulls"),  # a stale render pull request to close? (none here)
        ("GET", "/repos/octo/shelf/issues"), ("GET", "/repos/octo/shelf/labels/shelf%3Adashboard"),  # the dashboard
        ("POST", "/repos/octo/shelf/labels"), ("POST", "/repos/octo/shelf/issues")]
    stale_lookup = harness.sb.calls_to("GET", "/repos/octo/shelf/pulls")[-1]
    assert stale_lookup.query["head"] == ["octo:memshelf-bot/render"] and stale_lookup.query["state"] == ["open"]
    patch = next(c for c in harness.sb.calls if c.method == "PATCH")
    assert patch.body == {"sha": main, "force": False}
    assert result.outputs == {"verdict": "valid", "errors": "0", "warnings": "0", "episodes": "4", "changed": "4",
                              "commit_sha": main, "pr_number": "", "standing_tokens": result.outputs["standing_tokens"],
                              "sarif_file": ""}
    assert int(result.outputs["standing_tokens"]) > 300
    assert f"**✅ committed** `{main[:12]}` to `main`: 4 derived files rendered from 4 episodes" in result.summary
    assert "Render check: ✅ fixed point" in result.summary
    assert "2026-09-22-ups-runtime" in harness.show(main, "ledger.tsv")

    checkout = harness.workspace(main)
    shelf, _ = load_shelf(checkout)
    assert shelf is not None and render_shelf(shelf, check=True).drifted == []


def test_render_starts_from_the_latest_main_not_the_event_sha(harness: Harness) -> None:
    before, first = merged(harness, "shelve/ups", {UPS: episode("2026-09-22-ups-runtime")})
    _, latest = merged(harness, "shelve/nas", {NAS: episode("2026-09-23-nas-move", title="NAS move")})
    result = harness.push_step(before, first)  # the event (and the checkout) are the older push
    assert result.exit_code == 0
    main = harness.sb.store.ref("refs/heads/main")
    assert harness.sb.store.commit(main).parents == (latest,)
    ledger = harness.show(main, "ledger.tsv")
    assert "2026-09-22-ups-runtime" in ledger and "2026-09-23-nas-move" in ledger


def test_server_errors_while_committing_are_retried(harness: Harness) -> None:
    before, after = merged(harness, "shelve/ups", {UPS: episode("2026-09-22-ups-runtime")})
    harness.sb.faults.server_error(502, method="POST", path_regex=r".*/git/commits")
    harness.sb.faults.server_error(503, method="GET", path_regex=r".*/git/ref/heads/main")
    result = harness.push_step(before, after)
    assert result.exit_code == 0 and result.outputs["commit_sha"] == harness.sb.store.ref("refs/heads/main")
    assert "server error 502" in result.summary and "server error 503" in result.summary


def test_workflow_dispatch_renders_the_default_branch(harness: Harness) -> None:
    harness.branch("main", {UPS: episode("2026-09-22-ups-runtime")})  # pushed without a render
    payload = workflow_dispatch_event(harness.sb)
    result = harness.step("workflow_dispatch", payload, harness.workspace(harness.sb.store.ref("refs/heads/main")))
    assert result.exit_code == 0 and result.outputs["commit_sha"] == harness.sb.store.ref("refs/heads/main")
    assert all(is_derived(p, load_shelf(harness.workspace(result.outputs["commit_sha"]))[0])
               for p in changed_paths(harness, result.outputs["commit_sha"]))


def test_a_render_that_is_not_a_fixed_point_fails_the_job_and_commits_nothing(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.flows import render_main

    before, after = merged(harness, "shelve/ups", {UPS: episode("2026-09-22-ups-runtime")})
    real = render_main.render_shelf

    def unstable(shelf, *, check: bool = False, badge=None, cache=None):
        result = real(shelf, check=check, badge=badge, cache=cache)
        if check:
            result.drifted.append("stats.svg")
        return result

    monkeypatch.setattr(render_main, "render_shelf", unstable)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(push_event(harness.sb, "refs/heads/main", before, after, pusher="octo")))
    summary, output = tmp_path / "summary.md", tmp_path / "output"
    env = {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": REPO,
           "GITHUB_WORKSPACE": str(harness.workspace(after)), "GITHUB_API_URL": harness.sb.api_url,
           "GITHUB_SERVER_URL": harness.sb.api_url, "GITHUB_STEP_SUMMARY": str(summary),
           "GITHUB_OUTPUT": str(output), "INPUT_TOKEN": BOT_TOKEN}
    monkeypatch.setenv("HOME", str(harness.home))
    out = io.StringIO()
    assert action.run(env, WorkflowReporter.from_env(env, out)) == 1
    assert harness.sb.store.ref("refs/heads/main") == after
    assert "**❌ render failed**: rendering is not a fixed point" in summary.read_text()
    assert "::error title=memshelf-bot%3A render failed::rendering is not a fixed point" in out.getvalue()
    assert not [c for c in harness.sb.calls if c.method == "POST" and "/git/" in c.path]


def test_a_stale_render_pull_request_is_closed_once_main_is_rendered_without_it(harness: Harness) -> None:
    harness.sb.faults.protected_branch("main")
    before, after = merged(harness, "shelve/ups", {UPS: episode("2026-09-22-ups-runtime")})
    first = harness.push_step(before, after)
    pull = harness.sb.state.pull(int(first.outputs["pr_number"]))
    assert pull is not None and pull.state == "open"

    harness.sb.faults.clear()  # the bot may now commit to main (e.g. it joined the bypass list)
    _, later = merged(harness, "shelve/nas", {NAS: episode("2026-09-23-nas-move", title="NAS move")})
    second = harness.push_step(after, later)
    main = harness.sb.store.ref("refs/heads/main")
    assert second.exit_code == 0 and second.outputs["commit_sha"] == main and second.outputs["pr_number"] == ""
    assert pull.state == "closed" and pull.merged_at is None
    assert harness.sb.store.ref("refs/heads/memshelf-bot/render") is None
    [note] = [c.body for c in harness.sb.state.comments.values() if c.issue_number == pull.number]
    assert note == (f"`main` is rendered without this pull request (the bot committed {main[:12]} to it), so "
                    "memshelf-bot closes it and deletes `memshelf-bot/render`.")
    assert (f"\n\nClosed the stale render pull request #\u200d{pull.number} and deleted memshelf-bot/render.\n"
            in second.summary)  # the summary's text is escaped: no `#2` GitHub would link

