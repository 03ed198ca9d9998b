"""The pull-request flow end to end: `memshelf-bot action` as a subprocess, a real clone as the
workspace, webhook payloads built from the official examples, the sandbox as GitHub."""

from __future__ import annotations

import re

import pytest

from bot.report.workflow import SUMMARY_LIMIT
from memshelf_sandbox.actionrun import parse_commands
from tests import action_harness
from tests.action_harness import TOWER, Harness, episode, git
from tests.sandbox_fixtures import WHO, pull_request_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

GOOD = "docs/topics/2026-09-22-ups-runtime.md"
BAD = "docs/topics/2026-09-23-nas.md"
ODD = "docs/topics/2026-09-24-50%,odd:name.md"
SECRET = "ghp_" + "Zz9" * 12
BAD_TEXT = (episode("2026-09-23-nas", title="NAS", extra='notes: "pool moved,\trails pending"\n')
            .replace("id: 2026-09-23-nas", "id: 2026-09-22-nas")
            .replace("tags: [homelab]\n", "")
            .replace("- NUT client on the backup host.\n", f"- NUT client on the backup host.\n- deploy key {SECRET}\n"))
ODD_TEXT = episode("2026-09-24-50%,odd:name").replace("## Digest\n", "## Summary\n")


def lines_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def comment_calls(h: Harness, since: int = 0) -> list[tuple[str, int]]:
    return [(method, status) for method, path, status in h.api_calls(since) if "/comments" in path
            and method != "GET"]


@pytest.mark.real_step  # pull_request on the real `python -m bot.cli action`
def test_a_bad_episode_fails_with_exact_annotations_a_sticky_comment_and_outputs(harness: Harness) -> None:
    number = harness.open_pr("night-shift/one", {GOOD: episode("2026-09-22-ups-runtime"), BAD: BAD_TEXT,
                                                  ODD: ODD_TEXT})
    result = harness.pr_step(number)

    assert result.exit_code == 1, result.stderr
    assert result.stderr == ""
    out = result.outputs
    assert {k: out[k] for k in ("verdict", "episodes", "changed", "commit_sha", "pr_number")} == {
        "verdict": "violations", "episodes": "3", "changed": "3", "commit_sha": "", "pr_number": str(number)}
    assert int(out["errors"]) == len(result.by_level("error")) and int(out["standing_tokens"]) > 0

    assert [(a.level, a.file, a.line, a.title) for a in result.annotations] == [
        ("error", BAD, 3, "memshelf-bot: field-missing"),
        ("error", BAD, 4, "memshelf-bot: id-mismatch"),
        ("error", BAD, lines_of(BAD_TEXT, "notes:"), "memshelf-bot: control-character"),
        ("error", BAD, lines_of(BAD_TEXT, "deploy key"), "memshelf-bot: secret"),
        ("error", ODD, None, "memshelf-bot: digest-missing"),
    ]
    by_code = {a.title.split(": ")[1]: a for a in result.annotations}
    assert by_code["id-mismatch"].raw == (
        f"::error file={BAD},line=4,title=memshelf-bot%3A id-mismatch::id '2026-09-22-nas' differs from the file "
        "name '2026-09-23-nas'%0Afix: Make id equal the file name without .md (or rename the file).")
    odd = [a for a in result.annotations if a.file == ODD]
    assert odd and all("file=docs/topics/2026-09-24-50%25%2Codd%3Aname.md" in a.raw for a in odd)
    assert by_code["secret"].message.startswith("a credential (github-token): - deploy key «redacted:github-token»")

    [sticky] = harness.sticky(number)
    body = sticky.body
    assert body.startswith("<!-- memshelf-bot:sticky shelf=. -->\n### memshelf-bot: ❌ violations")
    assert sticky.user.login == "github-actions[bot]"
    for block in ("```suggestion\nid: 2026-09-23-nas\n```", '```suggestion\nnotes: "pool moved, rails pending"\n```',
                  "```suggestion\ntags: []\n---\n```", "```suggestion\n- deploy key «redacted:github-token»\n```"):
        assert re.sub(r"\n  ", "\n", body).count(block) == 1, block
    assert SECRET not in body and "| `docs/topics/2026-09-22-ups-runtime.md` (added) | ✅ valid | 0 | 0 |" in body

    calls = harness.sb.calls
    files = [c for c in calls if c.path == f"/repos/octo/shelf/pulls/{number}/files"]
    assert [(c.status, c.query.get("per_page")) for c in files] == [(200, ["100"])]
    assert comment_calls(harness) == [("POST", 201)]
    assert not [c for c in calls if c.method != "GET" and "/git/" in c.path]  # the PR flow never writes git data
    assert "| Episode | Verdict | Errors | Warnings | Digest words | Standing-cost Δ (tokens) |" in result.summary


@pytest.mark.parametrize("checkout", ["merge commit", "base (pull_request_target)"])
def test_the_pr_head_is_checked_whatever_the_workspace_holds(harness: Harness, checkout: str) -> None:
    number = harness.open_pr("night-shift/where", {BAD: BAD_TEXT})
    payload = pull_request_event(harness.sb, number)
    head, base = payload["pull_request"]["head"]["sha"], payload["pull_request"]["base"]["sha"]
    workspace = harness.workspace(base)
    if checkout == "merge commit":  # what actions/checkout leaves for `pull_request`: refs/pull/N/merge
        git("fetch", "--quiet", "origin", head, cwd=workspace, home=harness.home)
        git("merge", "--quiet", "--no-ff", "-m", "Merge", head, cwd=workspace, home=harness.home)
    event = "pull_request" if checkout == "merge commit" else "pull_request_target"
    result = harness.step(event, payload, workspace)
    assert result.exit_code == 1
    assert {a.title for a in result.annotations} == {"memshelf-bot: field-missing", "memshelf-bot: id-mismatch",
                                                     "memshelf-bot: control-character", "memshelf-bot: secret"}
    assert not (workspace / ".git" / "worktrees").exists() or not any((workspace / ".git" / "worktrees").iterdir())


@pytest.mark.real_step  # the fork token's case too
@pytest.mark.parametrize("how", ["read-only token", "injected 403"])
def test_a_fork_token_cannot_comment_and_the_check_still_reports(harness: Harness, how: str) -> None:
    number = harness.open_pr("night-shift/fork", {BAD: BAD_TEXT})
    token = action_harness.BOT_TOKEN
    if how == "read-only token":
        token = "ghs_fork" + "0" * 32
        harness.sb.add_token(token, "fork-actions[bot]", permission="read")
    else:
        harness.sb.faults.forbidden_integration("POST", rf"/repos/octo/shelf/issues/{number}/comments")
    result = harness.pr_step(number, token=token)
    assert result.exit_code == 1 and result.outputs["verdict"] == "violations"  # the verdict, not a crash
    assert harness.sticky(number) == []
    posts = [c.status for c in harness.sb.calls if c.method == "POST" and c.path.endswith("/comments")]
    assert posts == [403]  # tried once, refused, not retried
    [notice] = result.by_level("notice")
    assert notice.title == "memshelf-bot: no PR comment"
    assert "could not comment: the token may not write here" in result.summary
    assert "❌ error" in result.summary and "id-mismatch" in result.summary  # the summary carries everything
    assert "### Suggested changes" in result.summary and "```suggestion\nid: 2026-09-23-nas\n```" in result.summary


def test_the_guard_blocks_derived_and_other_paths_symlinks_and_collisions(harness: Harness) -> None:
    sb = harness.sb
    parent = sb.store.ref("refs/heads/main")
    tree = sb.store.commit(parent).tree
    blob = sb.store.write_blob
    changes = [("INDEX.md", "100644", blob(b"# hand-edited\n")),
               ("README.md", "100644", blob(b"# readme\n")),
               ("notes.txt", "100644", blob(b"notes\n")),
               ("docs/topics/link.md", "120000", blob(b"../../POLICY.md")),
               ("docs/research/2026-09-16-tower-rack-case.md", "100644", blob(episode("2026-09-16-tower-rack-case",
                                                                                       kind="research").encode())),
               (TOWER, "100644", None)]
    sha = sb.store.write_commit(sb.store.write_tree(tree, changes), [parent], "mixed\n", WHO, WHO)
    sb.store.update_ref("refs/heads/shelve/mixed", sha, None)
    number = harness.repo.create_pull(title="mixed", body="", head="shelve/mixed", base="main").number
    result = harness.pr_step(number)
    assert result.exit_code == 1
    codes = {(a.file, a.title.split(": ")[1]) for a in result.annotations}
    assert {("INDEX.md", "derived-path-touched"), ("notes.txt", "path-not-allowed"),
            ("docs/topics/link.md", "symlink"), (TOWER, "episode-removed"),
            ("docs/research/2026-09-16-tower-rack-case.md", "id-collision")} <= codes
    assert "**Guard**: ❌ blocked" in result.summary and "- derived paths touched: `INDEX.md`" in result.summary

    assert ("README.md", "path-not-allowed") not in codes  # repository upkeep passes by default

    allowed = harness.pr_step(number, "synchronize", allow_paths="notes.txt, docs/extra/**")
    assert ("notes.txt", "path-not-allowed") not in {(a.file, (a.title or "").split(": ")[-1])
                                                     for a in allowed.annotations}
    assert "- allowed paths: `README.md`, `notes.txt`" in allowed.summary


def test_a_pr_cannot_widen_allow_paths_through_its_own_settings_file(harness: Harness) -> None:
    number = harness.open_pr("shelve/sneaky", {".memshelf-bot.yml": "allow_paths: ['**']\n", "notes.txt": "x\n"})
    result = harness.pr_step(number)
    flagged = {a.file for a in result.annotations if a.title == "memshelf-bot: path-not-allowed"}
    assert flagged == {"notes.txt"} and result.exit_code == 1  # the settings file itself is upkeep


@pytest.mark.parametrize("status", [403, 429])
def test_rate_limits_and_server_errors_are_waited_out_and_accounted_for(harness: Harness, status: int) -> None:
    number = harness.open_pr("shelve/limited", {GOOD: episode("2026-09-22-ups-runtime")})
    harness.sb.faults.rate_limited(retry_after=1, status=status, method="GET", path_regex=r".*/pulls/\d+/files")
    harness.sb.faults.server_error(502, method="GET", path_regex=r".*/issues/\d+/comments")
    result = harness.pr_step(number, comment="always")
    assert result.exit_code == 0, result.stdout
    files = [c.status for c in harness.sb.calls if c.path.endswith(f"/pulls/{number}/files")]
    listed = [c.status for c in harness.sb.calls if c.method == "GET" and c.path.endswith(f"/issues/{number}/comments")]
    assert files == [status, 200] and listed[:2] == [502, 200]
    assert f"rate limit {status}, 1.0 s" in result.summary and "server error 502" in result.summary
    assert "GitHub asked the bot to wait or retry 2 times" in result.summary
    assert f"rate limit {status}; waiting 1.0 s before trying again" in result.stdout


def test_past_3000_files_the_pr_is_unchecked_annotations_are_cut_and_the_summary_capped(harness: Harness) -> None:
    sb = harness.sb
    parent = sb.store.ref("refs/heads/main")
    blob = sb.store.write_blob(b"x\n")
    tree = sb.store.write_tree(sb.store.commit(parent).tree,
                               [(f"junk/{'long-name-' * 8}{i:04d}.txt", "100644", blob) for i in range(3001)])
    sb.store.update_ref("refs/heads/shelve/huge", sb.store.write_commit(tree, [parent], "huge\n", WHO, WHO), None)
    number = harness.repo.create_pull(title="huge", body="", head="shelve/huge", base="main").number
    result = harness.pr_step(number)

    assert result.exit_code == 1 and result.outputs["changed"] == "3000"
    assert len(result.by_level("error")) == 10  # GitHub's per-type display limit
    assert result.by_level("error")[0].message.startswith("GitHub lists only the first 3,000 files")
    assert "### Not shown as annotations (2,991 errors)" in result.summary
    assert len(result.summary.encode()) <= SUMMARY_LIMIT
    assert "**This summary was truncated**" in result.summary
    [sticky] = harness.sticky(number)
    assert len(sticky.body) <= 65536 and "more findings: the job summary lists every one." in sticky.body
    assert len([line for line in result.stdout.split("\n") if "[path-not-allowed]" in line]) == 3000  # the log has all


def test_annotations_parse_back_exactly_and_ignore_stopped_commands() -> None:
    stdout = ("::stop-commands::abc\n::error::not a command\n::abc::\n"
              "::warning file=a%2Cb%3Ac.md,line=3,title=t%3A x::50%25 done%0Anext\n")
    annotations, masks = parse_commands(stdout)
    assert [(a.level, a.file, a.line, a.title, a.message) for a in annotations] == [
        ("warning", "a,b:c.md", 3, "t: x", "50% done\nnext")]
    assert masks == []
