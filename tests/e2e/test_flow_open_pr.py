"""A push to an agent branch opens or updates its one pull request and validates it in the same
run: title and body from the episodes, the `memshelf-bot/validate` status, labels, the sticky
comment, opt-in auto-merge. Other pushes are left alone."""

from __future__ import annotations

import threading

from bot.pulls import STATUS_CONTEXT
from memshelf_sandbox.actionrun import StepResult
from memshelf_sandbox.state import Label
from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
ZERO = "0" * 40
UPS = "docs/topics/2026-09-22-ups.md"
NAS = "docs/topics/2026-09-23-nas.md"
BAD_NAS = episode("2026-09-23-nas", title="NAS move").replace("id: 2026-09-23-nas", "id: nas")


def push(h: Harness, branch: str, files: dict[str, str], base: str = "main", **inputs: str) -> StepResult:
    """Commit `files` on `base` (a branch name) as `branch`, then run the step for that push."""
    before = h.sb.store.ref(f"refs/heads/{branch}") or ZERO
    after = h.branch(branch, files, base=base)
    payload = push_event(h.sb, f"refs/heads/{branch}", before, after, pusher="night-shift-agent")
    return h.step("push", payload, h.workspace(after), **inputs)


def open_pulls(h: Harness, branch: str) -> list:
    with h.sb.state.lock:
        return [p for p in h.sb.state.pulls.values() if p.state == "open" and p.head_ref == branch]


def status_of(h: Harness, sha: str):
    return next(s for s in h.sb.state.latest_statuses(sha) if s.context == STATUS_CONTEXT)


def test_a_push_opens_one_pull_request_with_title_body_labels_and_status(harness: Harness) -> None:
    mark = len(harness.sb.calls)
    result = push(harness, "shelve/ups", {UPS: episode("2026-09-22-ups", title="UPS runtime test")})
    after = harness.sb.store.ref("refs/heads/shelve/ups")

    assert result.exit_code == 0, result.stdout + result.stderr
    [pr] = open_pulls(harness, "shelve/ups")
    assert (pr.title, pr.base_ref, pr.user.login) == ("UPS runtime test", "main", "github-actions[bot]")
    assert pr.body.startswith("<!-- memshelf-bot:pr shelf=. title=")
    assert "### `shelve/ups` → `main`: 1 episode" in pr.body
    assert "#### UPS runtime test\n`docs/topics/2026-09-22-ups.md` · topic · ✅ valid" in pr.body
    assert "> The UPS carries the rack for 38 minutes under full load." in pr.body
    assert "**Validation**: **✅ valid** — 0 errors, 0 warnings · 1 episode checked" in pr.body
    assert pr.body.endswith("<!-- /memshelf-bot:pr -->")
    assert [label.name for label in pr.labels] == ["shelf:episode"]
    assert harness.sb.state.label("shelf:episode") == Label(pr.labels[0].id, "shelf:episode", "5319e7",
                                                           "Episodes for the memory shelf (memshelf-bot)")
    status = status_of(harness, after)
    assert (status.state, status.description, status.creator.login) == (
        "success", "valid: 0 error(s), 0 warning(s) in 1 episode(s)", "github-actions[bot]")
    assert harness.sticky(pr.number) == []  # `comment: auto` and nothing to say
    writes = [(m, p.split("/repos/octo/shelf")[1]) for m, p, _ in harness.api_calls(mark) if m != "GET"]
    assert writes == [("POST", "/pulls"), ("POST", "/labels"), ("POST", f"/issues/{pr.number}/labels"),
                      ("POST", f"/statuses/{after}"), ("POST", "/check-runs")]
    assert result.outputs == {"verdict": "valid", "errors": "0", "warnings": "0", "episodes": "1", "changed": "1",
                              "commit_sha": "", "pr_number": str(pr.number),
                              "standing_tokens": result.outputs["standing_tokens"], "sarif_file": ""}
    assert f"Opened pull request #{pr.number} for `shelve/ups`." in result.summary
    assert f"Commit status `memshelf-bot/validate` on `{after[:12]}`: success." in result.summary


def test_a_second_push_updates_the_same_pull_request_and_keeps_a_humans_text(harness: Harness) -> None:
    push(harness, "shelve/ups", {UPS: episode("2026-09-22-ups", title="UPS runtime test")})
    [pr] = open_pulls(harness, "shelve/ups")
    harness.repo.get_pull(pr.number).edit(body="Reviewed by the night nurse.\n\n" + pr.body + "\n\nPS: ship it")

    second = push(harness, "shelve/ups", {NAS: episode("2026-09-23-nas", title="NAS move")}, base="shelve/ups")
    assert second.exit_code == 0, second.stdout
    assert open_pulls(harness, "shelve/ups") == [pr]
    assert pr.title == "2 episodes: UPS runtime test; NAS move"
    assert pr.body.startswith("Reviewed by the night nurse.\n\n<!-- memshelf-bot:pr")
    assert pr.body.endswith("<!-- /memshelf-bot:pr -->\n\nPS: ship it") and pr.body.count("memshelf-bot:pr") == 2
    assert "### `shelve/ups` → `main`: 2 episodes" in pr.body and "#### NAS move" in pr.body
    assert f"Updated pull request #{pr.number} (body and title)." in second.summary
    assert second.outputs["pr_number"] == str(pr.number) and second.outputs["episodes"] == "2"

    harness.repo.get_pull(pr.number).edit(title="Night shift, reviewed")  # a human retitles it
    third = push(harness, "shelve/ups", {"docs/topics/2026-09-24-dns.md": episode("2026-09-24-dns", title="DNS")},
                 base="shelve/ups")
    assert third.exit_code == 0 and pr.title == "Night shift, reviewed" and "#### DNS" in pr.body
    assert f"Updated pull request #{pr.number} (body)." in third.summary


def test_a_pull_request_someone_else_opened_gets_the_block_appended_and_keeps_its_title(harness: Harness) -> None:
    number = harness.open_pr("shelve/mine", {UPS: episode("2026-09-22-ups")}, title="My night shift")
    harness.repo.get_pull(number).edit(body="Opened by hand.")
    result = push(harness, "shelve/mine", {NAS: episode("2026-09-23-nas")}, base="shelve/mine")
    pr = harness.sb.state.pull(number)
    assert result.exit_code == 0 and open_pulls(harness, "shelve/mine") == [pr]
    assert pr.title == "My night shift" and pr.body.startswith("Opened by hand.\n\n<!-- memshelf-bot:pr shelf=.")


def test_a_create_that_loses_the_race_uses_the_pull_request_the_other_run_opened(harness: Harness) -> None:
    harness.branch("shelve/race", {UPS: episode("2026-09-22-ups")})
    other = harness.repo.create_pull(title="opened by the other run", body="", head="shelve/race", base="main")
    # this run listed before the other run's PR existed: its create is the one GitHub refuses
    harness.sb.faults.add("GET", r"/repos/octo/shelf/pulls", 200, [], times=1)
    mark = len(harness.sb.calls)
    main = harness.sb.store.ref("refs/heads/main") or ""
    after = harness.sb.store.ref("refs/heads/shelve/race") or ""
    result = harness.step("push", push_event(harness.sb, "refs/heads/shelve/race", main, after), harness.workspace(after))
    assert result.exit_code == 0, result.stdout
    pulls_calls = [(m, s) for m, p, s in harness.api_calls(mark) if p == "/repos/octo/shelf/pulls"]
    assert pulls_calls == [("GET", 200), ("POST", 422), ("GET", 200)]
    assert [p.number for p in open_pulls(harness, "shelve/race")] == [other.number]
    assert result.outputs["pr_number"] == str(other.number)


def test_concurrent_pushes_still_make_one_pull_request(harness: Harness) -> None:
    after = harness.branch("shelve/twice", {UPS: episode("2026-09-22-ups")})
    main = harness.sb.store.ref("refs/heads/main") or ""
    payload = push_event(harness.sb, "refs/heads/shelve/twice", main, after, pusher="night-shift-agent")
    workspaces = [harness.workspace(after) for _ in range(3)]
    results: list[StepResult] = []
    threads = [threading.Thread(target=lambda w=w: results.append(harness.step("push", payload, w)))
               for w in workspaces]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.exit_code for r in results] == [0, 0, 0], [r.stdout for r in results]
    [pr] = open_pulls(harness, "shelve/twice")
    assert {r.outputs["pr_number"] for r in results} == {str(pr.number)}
    creates = [c.status for c in harness.sb.calls_to("POST", "/repos/octo/shelf/pulls")]
    assert creates.count(201) == 1 and set(creates) <= {201, 422}  # a lost race is a 422, then the winner's PR
    assert [label.name for label in pr.labels] == ["shelf:episode"]
    assert len([label for label in harness.sb.state.labels.values() if label.name == "shelf:episode"]) == 1


def test_an_invalid_episode_fails_the_status_labels_the_pr_and_comments_then_a_fix_clears_them(
        harness: Harness) -> None:
    result = push(harness, "night-shift/2026-09-23", {NAS: BAD_NAS})
    after = harness.sb.store.ref("refs/heads/night-shift/2026-09-23")
    assert result.exit_code == 1
    [pr] = open_pulls(harness, "night-shift/2026-09-23")
    assert sorted(label.name for label in pr.labels) == ["shelf:episode", "shelf:invalid"]
    invalid = harness.sb.state.label("shelf:invalid")
    assert invalid is not None and (invalid.color, invalid.description) == (
        "d73a4a", "memshelf-bot found errors in these episodes")
    status = status_of(harness, after)
    assert (status.state, status.description) == ("failure", "violations: 1 error(s), 0 warning(s) in 1 episode(s)")
    [sticky] = harness.sticky(pr.number)
    assert "### memshelf-bot: ❌ violations" in sticky.body and "`id-mismatch`" in sticky.body
    assert "  ```suggestion\n  id: 2026-09-23-nas\n  ```" in sticky.body
    assert "#### NAS move\n`docs/topics/2026-09-23-nas.md` · topic · ❌ violations (1 error, 0 warnings)" in pr.body
    assert [(a.file, a.title) for a in result.by_level("error")] == [(NAS, "memshelf-bot: id-mismatch")]

    fixed = push(harness, "night-shift/2026-09-23", {NAS: episode("2026-09-23-nas", title="NAS move")},
                 base="night-shift/2026-09-23")
    head = harness.sb.store.ref("refs/heads/night-shift/2026-09-23")
    assert fixed.exit_code == 0
    assert [label.name for label in pr.labels] == ["shelf:episode"]
    assert status_of(harness, head).state == "success" and status_of(harness, after).state == "failure"
    [same] = harness.sticky(pr.number)
    assert same.id == sticky.id and "### memshelf-bot: ✅ valid" in same.body
    assert "Labels: −`shelf:invalid`." in fixed.summary


def test_auto_merge_is_armed_for_a_valid_branch_and_disarmed_when_it_breaks(harness: Harness) -> None:
    harness.sb.state.repo.allow_auto_merge = True
    harness.sb.protect("main", ["shelf-bot / pull-request"])  # a required check still to come
    result = push(harness, "shelve/auto", {UPS: episode("2026-09-22-ups")}, auto_merge="true")
    after = harness.sb.store.ref("refs/heads/shelve/auto")
    [pr] = open_pulls(harness, "shelve/auto")
    assert result.exit_code == 0
    assert pr.auto_merge is not None and pr.auto_merge["merge_method"] == "squash"
    [graphql] = [c for c in harness.sb.calls if c.path == "/graphql"]
    assert graphql.body["variables"]["input"] == {"pullRequestId": pr.node_id, "mergeMethod": "SQUASH",
                                                  "expectedHeadOid": after}
    [sticky] = harness.sticky(pr.number)
    assert "🔀 Auto-merge is on: GitHub squash-merges this pull request into `main` once its required checks " \
           "pass." in sticky.body

    broken = push(harness, "shelve/auto", {NAS: BAD_NAS}, base="shelve/auto", auto_merge="true")
    assert broken.exit_code == 1 and pr.auto_merge is None and pr.state == "open"
    assert "Auto-merge was turned off: the episodes no longer pass." in harness.sticky(pr.number)[0].body


def test_auto_merge_with_nothing_to_wait_for_merges_now_and_renders_main(harness: Harness) -> None:
    harness.sb.state.repo.allow_auto_merge = True
    main_before = harness.sb.store.ref("refs/heads/main")
    result = push(harness, "shelve/now", {UPS: episode("2026-09-22-ups", title="UPS runtime test")},
                  auto_merge="true")
    pr = harness.sb.state.pull(int(result.outputs["pr_number"]))
    assert result.exit_code == 0, result.stdout
    assert pr is not None and pr.merged_at and pr.merged_by and pr.merged_by.login == "github-actions[bot]"
    squash = harness.sb.store.commit(pr.merge_commit_sha or "")
    assert squash.parents == (main_before,) and squash.message.startswith(f"UPS runtime test (#{pr.number})")
    main = harness.sb.store.ref("refs/heads/main")
    assert result.outputs["commit_sha"] == main and harness.sb.store.commit(main).parents == (pr.merge_commit_sha,)
    assert "2026-09-22-ups" in harness.show(main, "ledger.tsv")
    assert "the bot squash-merged this pull request into `main`" in harness.sticky(pr.number)[0].body
    assert "## memshelf-bot · render on `main`" in result.summary
    assert (result.outputs["pr_number"], result.outputs["verdict"]) == (str(pr.number), "valid")


def test_auto_merge_not_allowed_is_said_once_in_the_comment_and_is_not_a_failure(harness: Harness) -> None:
    result = push(harness, "shelve/no-auto", {UPS: episode("2026-09-22-ups")}, auto_merge="true")
    [pr] = open_pulls(harness, "shelve/no-auto")
    assert result.exit_code == 0 and pr.auto_merge is None
    [sticky] = harness.sticky(pr.number)
    assert sticky.body.count("this repository does not allow auto-merge") == 1
    again = push(harness, "shelve/no-auto", {NAS: episode("2026-09-23-nas")}, base="shelve/no-auto",
                 auto_merge="true")
    assert again.exit_code == 0 and len(harness.sticky(pr.number)) == 1
    assert harness.sticky(pr.number)[0].body.count("does not allow auto-merge") == 1


def test_when_actions_may_not_open_pull_requests_the_run_says_how_to_allow_it(harness: Harness) -> None:
    harness.sb.faults.add("POST", r"/repos/octo/shelf/pulls", 403,
                          {"message": "GitHub Actions is not permitted to create or approve pull requests."})
    result = push(harness, "shelve/blocked", {UPS: episode("2026-09-22-ups")})
    after = harness.sb.store.ref("refs/heads/shelve/blocked")
    assert result.exit_code == 1 and open_pulls(harness, "shelve/blocked") == []
    [error] = result.by_level("error")
    assert error.title == "memshelf-bot: no pull request"
    assert "GitHub Actions is not permitted to create or approve pull requests" in error.message
    assert "Allow GitHub Actions to create and approve pull requests" in error.message
    assert status_of(harness, after).state == "success"  # the verdict still reaches the commit
    assert result.outputs["verdict"] == "valid" and result.outputs["pr_number"] == ""


def test_branch_patterns_come_from_the_input_and_the_bots_branches_are_never_agent_branches(
        harness: Harness) -> None:
    ignored = push(harness, "agents/one", {UPS: episode("2026-09-22-ups")})
    assert ignored.exit_code == 0 and ignored.annotations[0].level == "notice"
    assert "does not act on a push to agents/one" in ignored.annotations[0].message
    checked = push(harness, "agents/two", {UPS: episode("2026-09-22-ups")}, branch_patterns="agents/**\nbots/*")
    assert checked.exit_code == 0 and checked.outputs["pr_number"]
    assert [p.head_ref for p in harness.sb.state.pulls.values()] == ["agents/two"]

    mark = len(harness.sb.calls)
    own = push(harness, "memshelf-bot/render", {UPS: episode("2026-09-22-ups")}, branch_patterns="**")
    assert own.exit_code == 0 and "the bot's own branch" in own.annotations[0].message
    assert harness.api_calls(mark) == []


def test_a_branch_with_nothing_new_opens_nothing(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main") or ""
    assert harness.sb.store.update_ref("refs/heads/shelve/empty", main, None)
    payload = push_event(harness.sb, "refs/heads/shelve/empty", ZERO, main, pusher="night-shift-agent")
    result = harness.step("push", payload, harness.workspace(main))
    assert result.exit_code == 0 and harness.sb.state.pulls == {}
    assert "has no commit that `main` lacks" in result.summary


def test_a_deleted_agent_branch_and_a_tag_are_nothing_to_do(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main") or ""
    deleted = push_event(harness.sb, "refs/heads/shelve/gone", main, ZERO, pusher="night-shift-agent")
    result = harness.step("push", deleted, harness.workspace(main))
    assert result.exit_code == 0 and "does not act on the deletion of shelve/gone" in result.stdout
    tag = push_event(harness.sb, "refs/tags/v1", ZERO, main, pusher="octo")
    tagged = harness.step("push", tag, harness.workspace(main))
    assert tagged.exit_code == 0 and "does not act on a push to refs/tags/v1 (not a branch)" in tagged.summary


def test_a_branch_that_breaks_shelf_yml_gets_its_pull_request_with_an_error_status(harness: Harness) -> None:
    result = push(harness, "shelve/cfg", {"shelf.yml": "spec_version: 0.1\nprofile: memory\n"})
    after = harness.sb.store.ref("refs/heads/shelve/cfg")
    assert result.exit_code == 2 and result.outputs["verdict"] == "config-error"
    [pr] = open_pulls(harness, "shelve/cfg")
    assert pr.title == "Shelve shelve/cfg"
    assert sorted(label.name for label in pr.labels) == ["shelf:episode", "shelf:invalid"]
    status = status_of(harness, after)
    assert (status.state, status.description) == (
        "error", "configuration error: shelf.yml or .memshelf-bot.yml is missing or invalid")
