"""`/shelf` commands on real git through the sandbox: `resolve` from a writer settles derived-file
and recall-log conflicts in a throwaway clone and lands them as one merge commit GitHub makes and
signs (a fast-forward, never a force; a ruleset requiring signed commits accepts it); a reader, a
bot, an episode conflict, a fork, a deleted comment and unknown commands get what they should."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from bot import action
from bot.flows import resolve_pr
from bot.report.workflow import WorkflowReporter
from memshelf_render.render import render_shelf
from memshelf_render.shelf import load_shelf
from memshelf_sandbox.actionrun import StepResult
from tests import action_harness
from tests.action_harness import BOT_TOKEN, MAINTAINER_TOKEN, REPO, TOWER, Harness, episode, git
from tests.sandbox_fixtures import WHO, issue_comment_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
READER_TOKEN = "ghp_" + "Rea6er00" * 4 + "abcd"
UPS, NAS = "docs/topics/2026-09-22-ups.md", "docs/topics/2026-09-23-nas.md"
UPS_ROW, NAS_ROW = "2026-09-22-ups\tDigest\t40", "2026-09-23-nas\tDecisions\t55"


def agent_branch(h: Harness, branch: str, files: dict[str, str], recall: list[str], *, render: bool,
                 base: str = "main") -> str:
    """An agent's branch pushed over HTTP: `files`, `recall` rows appended to recall-log.tsv and,
    with `render`, the derived files re-rendered (as `memshelf shelve --publish` leaves them)."""
    work = h.workspace(h.sb.store.ref(f"refs/heads/{base}") or "")
    for path, text in files.items():
        (work / path).write_text(text, encoding="utf-8")
    log = work / "recall-log.tsv"
    log.write_text(log.read_text(encoding="utf-8") + "".join(row + "\n" for row in recall), encoding="utf-8")
    if render:
        shelf, _ = load_shelf(work)
        assert shelf is not None
        render_shelf(shelf)
    git("add", "-A", cwd=work, home=h.home)
    git("commit", "--quiet", "-m", f"Shelve {branch}", cwd=work, home=h.home)
    git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=work, home=h.home)
    return git("rev-parse", "HEAD", cwd=work, home=h.home)


def pull_for(h: Harness, branch: str) -> int:
    return h.repo.create_pull(title=f"Shelve {branch}", body="", head=branch, base="main").number


def conflicting(h: Harness, *, render: bool) -> tuple[int, str]:
    """Two agents shelve from the same main; the first is merged: (the second's PR, its head)."""
    agent_branch(h, "shelve/ups", {UPS: episode("2026-09-22-ups")}, [UPS_ROW], render=render)
    head = agent_branch(h, "shelve/nas", {NAS: episode("2026-09-23-nas", title="NAS move")}, [NAS_ROW], render=render)
    first, second = pull_for(h, "shelve/ups"), pull_for(h, "shelve/nas")
    h.merge(first)
    return second, head


def comment(h: Harness, number: int, body: str, token: str = MAINTAINER_TOKEN) -> int:
    return h.sb.github(token).get_repo(REPO).get_issue(number).create_comment(body).id


def command(h: Harness, number: int, body: str, user: str = "octo-maintainer", token: str = MAINTAINER_TOKEN,
            comment_id: int | None = -1, **inputs: str) -> tuple[StepResult, Path]:
    """Comment `body` on PR `number` as `user` and run the step for that event; the workspace too."""
    if comment_id == -1:
        comment_id = comment(h, number, body, token)
    payload = issue_comment_event(h.sb, number, body, user=user, comment_id=comment_id)
    workspace = h.workspace(h.sb.store.ref("refs/heads/main") or "")
    return h.step("issue_comment", payload, workspace, **inputs), workspace


def reactions(h: Harness, comment_id: int) -> list[tuple[str, str]]:
    return [(r.content, r.user.login) for r in h.sb.state.comments[comment_id].reactions]


def replies(h: Harness, number: int) -> list[str]:
    with h.sb.state.lock:
        return [c.body for c in sorted(h.sb.state.comments.values(), key=lambda c: c.id)
                if c.issue_number == number and c.user.login == "github-actions[bot]"
                and not c.body.startswith("<!-- memshelf-bot:sticky")]


def pushes(h: Harness, since: int = 0) -> int:
    return sum(c.path.endswith("/git-receive-pack") for c in h.sb.calls[since:])


@pytest.mark.real_step  # issue_comment on the real `python -m bot.cli action`
def test_resolve_from_a_writer_merges_restores_and_unions_in_one_signed_commit(harness: Harness) -> None:
    number, head = conflicting(harness, render=True)
    assert harness.repo.get_pull(number).mergeable_state == "dirty"
    main = harness.sb.store.ref("refs/heads/main") or ""
    mark = len(harness.sb.calls)
    result, workspace = command(harness, number, "/shelf resolve")
    [comment_id] = [c.id for c in harness.sb.state.comments.values() if c.body == "/shelf resolve"]

    assert result.exit_code == 0, result.stdout + result.stderr
    new = harness.sb.store.ref("refs/heads/shelve/nas") or ""
    merge = harness.sb.store.commit(new)  # one bot commit: the merge restores the derived files too
    assert merge.parents == (head, main)  # the old head is the first parent: a fast-forward, never a force
    assert merge.message.startswith("Merge main into shelve/nas\n\nSettled by memshelf-bot on /shelf resolve "
                                    "(requested by octo-maintainer): derived files kept at main's version")
    assert (merge.author.name, merge.author.email) == ("github-actions[bot]",
                                                        "41898282+github-actions[bot]@users.noreply.github.com")
    assert harness.repo.get_commit(new).commit.verification.verified  # GitHub made it: signed
    assert pushes(harness, mark) == 0  # nothing pushed over git: the commit came from the Git Data API
    [create] = harness.sb.calls_to("POST", "/git/commits")[-1:]
    assert "author" not in create.body and "committer" not in create.body
    derived = ["INDEX.md", "ledger.tsv", "docs/topics/.meta.json", "stats.svg"]
    assert git("diff", "--name-only", main, new, "--", *derived, cwd=workspace, home=harness.home) == ""
    checkout = harness.workspace(new)
    log = (checkout / "recall-log.tsv").read_text(encoding="utf-8").splitlines()
    assert log == ["episode_id\tsection\tfetched_tokens", "2026-09-16-tower-rack-case\tDecisions\t41", NAS_ROW,
                   UPS_ROW]
    pull = harness.repo.get_pull(number)
    assert pull.mergeable and pull.mergeable_state != "dirty"

    assert reactions(harness, comment_id) == [("eyes", "github-actions[bot]"), ("rocket", "github-actions[bot]")]
    [reply] = replies(harness, number)
    assert reply.startswith(f"🚀 Merged `main` (`{main[:12]}`) into `shelve/nas` in one commit, `{new[:12]}`, on top "
                            f"of `{head[:12]}`: made by GitHub (signed), the branch fast-forwarded to it, never "
                            "forced.")
    assert "- unioned, every row from both sides kept: `recall-log.tsv`" in reply
    assert ("- derived files: left at `main`'s version, since this branch regenerated them and `restore_derived` "
            "is on") in reply
    assert [s.state for s in harness.sb.state.latest_statuses(new) if s.context == "memshelf-bot/validate"] == [
        "success"]
    assert result.outputs["commit_sha"] == new and result.outputs["pr_number"] == str(number)
    assert git("status", "--porcelain", cwd=workspace, home=harness.home) == ""  # the workspace is never used
    assert git("rev-parse", "HEAD", cwd=workspace, home=harness.home) == main


def test_a_branch_that_leaves_derived_files_to_main_keeps_mains_and_stays_valid(harness: Harness) -> None:
    number, head = conflicting(harness, render=False)  # only recall-log.tsv conflicts
    assert harness.repo.get_pull(number).mergeable_state == "dirty"
    main = harness.sb.store.ref("refs/heads/main") or ""
    result, _ = command(harness, number, "/shelf resolve", allow_paths="recall-log.tsv")
    assert result.exit_code == 0, result.stdout
    new = harness.sb.store.ref("refs/heads/shelve/nas") or ""
    assert harness.sb.store.commit(new).parents == (head, main)
    changed = sorted(c.filename for c in harness.sb.store.diff(main, new))
    assert changed == [NAS, "recall-log.tsv"]  # the PR still touches only its episode and the log
    [reply] = replies(harness, number)
    assert "regenerated" not in reply and "- unioned, every row from both sides kept: `recall-log.tsv`" in reply
    status = next(s for s in harness.sb.state.latest_statuses(new) if s.context == "memshelf-bot/validate")
    assert status.state == "success" and result.outputs["verdict"] == "valid"


def test_an_episode_conflict_pushes_nothing_and_says_what_to_do(harness: Harness) -> None:
    tower = harness.show("main", TOWER)
    agent_branch(harness, "shelve/tower-a", {TOWER: tower.replace("Sliger", "Sliger CX4170a")}, [], render=False)
    head = agent_branch(harness, "shelve/tower-b", {TOWER: tower.replace("Sliger", "Fractal Define 7")}, [],
                        render=False)
    harness.merge(pull_for(harness, "shelve/tower-a"))
    number = pull_for(harness, "shelve/tower-b")
    mark = len(harness.sb.calls)
    result, _ = command(harness, number, "/shelf resolve")
    comment_id = max(c.id for c in harness.sb.state.comments.values() if c.body == "/shelf resolve")

    assert result.exit_code == 0 and harness.sb.store.ref("refs/heads/shelve/tower-b") == head
    assert pushes(harness, mark) == 0
    assert reactions(harness, comment_id)[-1] == ("confused", "github-actions[bot]")
    [reply] = replies(harness, number)
    assert "these files conflict and only a human can say what they should hold. **Nothing was pushed.**" in reply
    assert f"- `{TOWER}`: episode, changed on both sides" in reply
    assert "git switch shelve/tower-b\ngit merge origin/main" in reply and "memshelf-bot resolve --commit" in reply


def test_a_branch_that_moves_during_resolve_is_never_overwritten(
        harness: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    number, head = conflicting(harness, render=True)
    comment_id = comment(harness, number, "/shelf resolve")
    real = resolve_pr._attempt
    moved: list[str] = []

    def meanwhile_a_human_pushes(*args: Any, **kwargs: Any) -> resolve_pr.Settlement:
        settled = real(*args, **kwargs)
        if not moved:  # after the first merge is built, before it is pushed
            store = harness.sb.store
            tip = store.ref("refs/heads/shelve/nas") or ""
            late = {"docs/topics/2026-09-24-late.md": episode("2026-09-24-late", title="Late")}
            tree = store.write_tree(store.commit(tip).tree, [(p, "100644", store.write_blob(t.encode()))
                                                             for p, t in late.items()])
            moved.append(store.write_commit(tree, [tip], "a human's late fix\n", WHO, WHO))
            assert store.update_ref("refs/heads/shelve/nas", moved[0], tip)
        return settled

    monkeypatch.setattr(resolve_pr, "_attempt", meanwhile_a_human_pushes)
    result = in_process(harness, tmp_path, monkeypatch,
                        issue_comment_event(harness.sb, number, "/shelf resolve", user="octo-maintainer",
                                            comment_id=comment_id))
    assert result == 0
    new = harness.sb.store.ref("refs/heads/shelve/nas") or ""
    merge = harness.sb.store.commit(new)
    assert merge.message.startswith("Merge main into shelve/nas")
    assert merge.parents[0] == moved[0]  # on the human's commit, not over it
    assert harness.sb.store.is_ancestor(head, new)
    [reply] = replies(harness, number)
    assert "- the branch moved while the bot worked: 2 attempts in all, each on its newest head" in reply


def in_process(h: Harness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, payload: dict[str, Any]) -> int:
    """The action in this process (so a test can replace a seam), as the runner would call it."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    workspace = h.workspace(h.sb.store.ref("refs/heads/main") or "")
    env = {"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(event), "GITHUB_REPOSITORY": REPO,
           "GITHUB_WORKSPACE": str(workspace), "GITHUB_API_URL": h.sb.api_url, "GITHUB_SERVER_URL": h.sb.api_url,
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"), "GITHUB_OUTPUT": str(tmp_path / "output"),
           "INPUT_TOKEN": BOT_TOKEN}
    monkeypatch.setenv("HOME", str(h.home))
    return action.run(env, WorkflowReporter.from_env(env, io.StringIO()))


def test_render_re_renders_the_bots_own_branch_and_nothing_else(harness: Harness) -> None:
    harness.sb.faults.protected_branch("main")
    before = harness.sb.store.ref("refs/heads/main") or ""
    after = harness.branch("main", {UPS: episode("2026-09-22-ups")})  # merged, not yet rendered
    first = harness.push_step(before, after)
    number = int(first.outputs["pr_number"])
    rendered = harness.sb.store.ref("refs/heads/memshelf-bot/render")
    harness.branch("main", {NAS: episode("2026-09-23-nas", title="NAS move")})  # its push run never came

    result, _ = command(harness, number, "/shelf render")
    assert result.exit_code == 0, result.stdout
    fresh = harness.sb.store.ref("refs/heads/memshelf-bot/render") or ""
    assert fresh != rendered and "2026-09-23-nas" in harness.show(fresh, "ledger.tsv")
    assert replies(harness, number)[-1] == (f"🚀 Re-rendered `main` on its latest commit: `memshelf-bot/render` now "
                                            f"holds `{fresh[:12]}`.")

    other = harness.open_pr("shelve/x", {"docs/topics/2026-09-24-dns.md": episode("2026-09-24-dns")})
    refused, _ = command(harness, other, "/shelf render")
    assert refused.exit_code == 0 and harness.sb.store.ref("refs/heads/memshelf-bot/render") == fresh
    assert replies(harness, other)[-1].startswith("😕 `/shelf render` re-renders the bot's own open pull requests "
                                                  "(branches `memshelf-bot/…`), and this pull request's branch is "
                                                  "`shelve/x`")


def test_resolve_on_a_branch_that_already_contains_its_base(harness: Harness) -> None:
    stale = agent_branch(harness, "shelve/stale", {UPS: episode("2026-09-22-ups")}, [], render=False)
    work = harness.workspace(stale)  # the agent rendered by hand, and got INDEX.md wrong
    (work / "INDEX.md").write_text("# my own index\n", encoding="utf-8")
    git("commit", "--quiet", "-am", "hand-made index", cwd=work, home=harness.home)
    git("push", "--quiet", "origin", "HEAD:refs/heads/shelve/stale", cwd=work, home=harness.home)
    head = git("rev-parse", "HEAD", cwd=work, home=harness.home)
    number = pull_for(harness, "shelve/stale")
    harness.sb.require_signed_commits("shelve/stale")  # a ruleset: only commits GitHub signed may land
    result, _ = command(harness, number, "/shelf resolve")
    new = harness.sb.store.ref("refs/heads/shelve/stale") or ""
    restored = harness.sb.store.commit(new)  # one commit: INDEX.md back to main's (restore_derived)
    assert result.exit_code == 0 and restored.parents == (head,), result.stdout
    assert restored.message.startswith("Restore derived files of shelve/stale to main's version")
    main = harness.sb.store.ref("refs/heads/main") or ""
    assert harness.show(new, "INDEX.md") == harness.show(main, "INDEX.md")
    assert harness.repo.get_commit(new).commit.verification.verified
    assert replies(harness, number)[-1].startswith("🚀 `shelve/stale` already contains `main` (")
    assert "; put its derived files back to `main`'s version in one commit, " in replies(harness, number)[-1]

    plain = harness.open_pr("shelve/plain", {NAS: episode("2026-09-23-nas")})
    before = harness.sb.store.ref("refs/heads/shelve/plain")
    mark = len(harness.sb.calls)
    nothing, _ = command(harness, plain, "/shelf resolve")
    assert nothing.exit_code == 0 and pushes(harness, mark) == 0
    assert harness.sb.store.ref("refs/heads/shelve/plain") == before
    assert replies(harness, plain)[-1].startswith("🚀 Nothing to resolve: `shelve/plain` already contains `main`")

