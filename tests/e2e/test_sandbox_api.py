"""PyGithub against the embedded GitHub sandbox, end to end, as a bot would use GitHub."""

from __future__ import annotations

import base64
import json

import pytest
from github import GithubException, InputGitTreeElement

from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.sandbox_fixtures import WHO, branch_with, raw_request

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox


def test_repository_points_every_url_at_the_sandbox(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    assert (repo.full_name, repo.default_branch, repo.allow_auto_merge, repo.fork) == ("octo/shelf", "main", False, False)
    assert repo.permissions.push and not repo.permissions.admin
    raw = repo.raw_data
    urls = {k: v for k, v in raw.items() if k.endswith("url") and isinstance(v, str) and v.startswith("http")}
    assert len(urls) > 30
    assert all(v.startswith(sandbox.api_url) for v in urls.values()), urls


def test_unknown_repository_and_bad_token(sandbox: Sandbox) -> None:
    with pytest.raises(GithubException) as missing:
        sandbox.github().get_repo("octo/other")
    assert missing.value.status == 404
    sandbox.state.pin_token("ghs_only")
    status, body, _ = raw_request(sandbox, "GET", "/repos/octo/shelf", token="ghs_wrong")
    assert (status, body["message"]) == (401, "Bad credentials")


def test_git_data_commit_then_fast_forward_then_non_fast_forward(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    main = repo.get_git_ref("heads/main")
    base = repo.get_git_commit(main.object.sha)
    blob = repo.create_git_blob(base64.b64encode(b"derived\n").decode(), "base64")
    tree = repo.create_git_tree([InputGitTreeElement("INDEX.md", "100644", "blob", sha=blob.sha),
                                 InputGitTreeElement("README.md", "100644", "blob", sha=None)],
                                repo.get_git_tree(base.tree.sha))
    commit = repo.create_git_commit("render [skip ci]", tree, [base])
    main.edit(commit.sha, force=False)
    assert sandbox.store.ref("refs/heads/main") == commit.sha
    paths = {e.path for e in repo.get_git_tree(commit.sha, recursive=True).tree}
    assert "INDEX.md" in paths and "README.md" not in paths
    assert sandbox.store.read_blob(blob.sha) == b"derived\n"
    assert commit.author.name == "github-actions[bot]" and commit.parents[0].sha == base.sha

    stale = repo.create_git_commit("stale render", tree, [base])  # a sibling, not a descendant
    with pytest.raises(GithubException) as refused:
        main.edit(stale.sha, force=False)
    assert refused.value.status == 422
    assert refused.value.data["message"] == "Update is not a fast forward"
    assert sandbox.store.ref("refs/heads/main") == commit.sha
    main.edit(stale.sha, force=True)
    assert sandbox.store.ref("refs/heads/main") == stale.sha


def test_refs_create_match_delete(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    sha = repo.get_branch("main").commit.sha
    repo.create_git_ref("refs/heads/shelve/one", sha)
    repo.create_git_ref("refs/heads/shelve/two", sha)
    with pytest.raises(GithubException) as exists:
        repo.create_git_ref("refs/heads/shelve/one", sha)
    assert (exists.value.status, exists.value.data["message"]) == (422, "Reference already exists")
    assert [r.ref for r in repo.get_git_matching_refs("heads/shelve/")] == ["refs/heads/shelve/one",
                                                                           "refs/heads/shelve/two"]
    repo.get_git_ref("heads/shelve/one").delete()
    assert sandbox.store.ref("refs/heads/shelve/one") is None
    with pytest.raises(GithubException) as gone:
        repo.get_git_ref("heads/shelve/one")
    assert gone.value.status == 404


def test_pull_request_lifecycle_and_listing_filters(sandbox: Sandbox) -> None:
    head = branch_with(sandbox, "shelve/first", {"docs/topics/2026-02-01-a.md": "a\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="Shelve a", body="digest", head="shelve/first", base="main")
    assert (pr.number, pr.head.sha, pr.base.ref, pr.mergeable, pr.mergeable_state) == (1, head, "main", True, "clean")
    assert pr.url == f"{sandbox.api_url}/repos/octo/shelf/pulls/1"
    with pytest.raises(GithubException) as duplicate:
        repo.create_pull(title="again", body="", head="shelve/first", base="main")
    assert duplicate.value.data["errors"][0]["message"] == "A pull request already exists for octo:shelve/first."
    branch_with(sandbox, "empty", {}, message="nothing")
    sandbox.store.update_ref("refs/heads/empty", sandbox.store.ref("refs/heads/main") or "", None)
    with pytest.raises(GithubException) as no_commits:
        repo.create_pull(title="none", body="", head="empty", base="main")
    assert no_commits.value.data["errors"][0]["message"] == "No commits between main and empty"

    assert [p.number for p in repo.get_pulls(state="open", head="octo:shelve/first")] == [1]
    assert list(repo.get_pulls(head="someone-else:shelve/first")) == []
    pr.edit(title="Shelve a (edited)", body="new digest")
    assert repo.get_pull(1).title == "Shelve a (edited)"
    pr.edit(state="closed")
    assert [p.number for p in repo.get_pulls(state="closed")] == [1]
    assert list(repo.get_pulls(state="open")) == []


def test_pull_files_page_past_100_with_link_headers(sandbox: Sandbox) -> None:
    files = {f"docs/topics/2026-02-01-n{i:03}.md": f"{i}\n" for i in range(250)}
    branch_with(sandbox, "shelve/many", files)
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="many", body="", head="shelve/many", base="main")
    listed = [f.filename for f in pr.get_files()]
    assert listed == sorted(files)
    pages = sandbox.calls_to("GET", "/pulls/1/files")
    assert [c.query.get("page", ["1"])[0] for c in pages] == ["1", "2", "3"]
    assert pr.changed_files == 250 and pr.additions == 250
    assert pr.get_files()[0].patch == "@@ -0,0 +1 @@\n+0"


def test_pull_files_capped_at_3000_like_github(sandbox: Sandbox) -> None:
    store = sandbox.store
    blob = store.write_blob(b"x\n")
    base_tree = store.commit(store.ref("refs/heads/main") or "").tree
    tree = store.write_tree(base_tree, [(f"docs/bulk/f{i:04}.md", "100644", blob) for i in range(3005)])
    head = store.write_commit(tree, [store.ref("refs/heads/main") or ""], "bulk\n", WHO, WHO)
    store.update_ref("refs/heads/bulk", head, None)
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="bulk", body="", head="bulk", base="main")
    assert pr.changed_files == 3005
    status, last, headers = raw_request(sandbox, "GET", "/repos/octo/shelf/pulls/1/files?per_page=100&page=30")
    assert status == 200 and len(last) == 100 and 'rel="next"' not in headers.get("Link", "")
    _, beyond, _ = raw_request(sandbox, "GET", "/repos/octo/shelf/pulls/1/files?per_page=100&page=31")
    assert beyond == []


def test_issue_comments_crud_reactions_and_paging(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/c", {"docs/x.md": "x\n"})
    repo = sandbox.github(per_page=2).get_repo("octo/shelf")
    pr = repo.create_pull(title="c", body="", head="shelve/c", base="main")
    made = [pr.create_issue_comment(f"comment {i}") for i in range(5)]
    assert [c.body for c in pr.get_issue_comments()] == [f"comment {i}" for i in range(5)]
    assert len(sandbox.calls_to("GET", "/issues/1/comments")) == 3  # 5 comments, 2 per page
    sticky = made[0]
    sticky.edit("<!-- memshelf-bot -->\nupdated")
    assert repo.get_issue(1).get_comment(sticky.id).body == "<!-- memshelf-bot -->\nupdated"
    assert sticky.user.login == "github-actions[bot]"
    assert sticky.performed_via_github_app is not None
    first = sticky.create_reaction("eyes")
    again = sticky.create_reaction("eyes")
    assert first.id == again.id
    assert [r.content for r in sticky.get_reactions()] == ["eyes"]
    made[1].delete()
    assert [c.id for c in pr.get_issue_comments()] == [c.id for c in made if c is not made[1]]
    with pytest.raises(GithubException) as too_long:
        pr.create_issue_comment("x" * 65537)
    assert too_long.value.status == 422
    assert too_long.value.data["errors"][0]["message"] == "Body is too long (maximum is 65536 characters)"


def test_labels(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/l", {"docs/l.md": "l\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="l", body="", head="shelve/l", base="main")
    repo.create_label("shelf:invalid", "d73a4a", "memshelf-bot found errors")
    with pytest.raises(GithubException) as exists:
        repo.create_label("Shelf:Invalid", "d73a4a")
    assert exists.value.data["errors"] == [{"resource": "Label", "code": "already_exists", "field": "name"}]
    assert repo.get_label("shelf:invalid").description == "memshelf-bot found errors"
    pr.add_to_labels("shelf:invalid", "auto")
    assert [label.name for label in pr.get_labels()] == ["shelf:invalid", "auto"]
    pr.remove_from_labels("shelf:invalid")
    assert [label.name for label in repo.get_issue(1).labels] == ["auto"]
    with pytest.raises(GithubException) as absent:
        pr.remove_from_labels("shelf:invalid")
    assert (absent.value.status, absent.value.data["message"]) == (404, "Label does not exist")


def test_statuses_and_combined_status(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    commit = repo.get_commit("main")
    commit.create_status("pending", context="memshelf-bot", description="validating")
    commit.create_status("success", target_url="http://example.invalid/run", context="memshelf-bot",
                         description="3 episodes valid")
    commit.create_status("failure", context="other")
    combined = commit.get_combined_status()
    assert combined.state == "failure"
    assert {(s.context, s.state) for s in combined.statuses} == {("memshelf-bot", "success"), ("other", "failure")}
    assert [s.state for s in commit.get_statuses()] == ["failure", "success", "pending"]
    with pytest.raises(GithubException) as unknown:
        repo.get_commit("0" * 40)
    assert unknown.value.status == 422


def test_check_runs(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    sha = repo.get_branch("main").commit.sha
    run = repo.create_check_run("memshelf-bot", sha, status="in_progress")
    assert (run.status, run.conclusion) == ("in_progress", None)
    run.edit(conclusion="failure", output={"title": "2 errors", "summary": "fix them",
                                           "annotations": [{"path": "docs/a.md", "start_line": 1, "end_line": 1,
                                                            "annotation_level": "failure", "message": "bad"}]})
    fetched = repo.get_check_run(run.id)
    assert (fetched.status, fetched.conclusion, fetched.output.title) == ("completed", "failure", "2 errors")
    assert fetched.output.annotations_count == 1
    assert [r.name for r in repo.get_commit(sha).get_check_runs()] == ["memshelf-bot"]


def test_contents_compare_commit_and_collaborator_permission(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/cc", {"docs/topics/2026-01-05-first.md": "changed\n", "docs/new.md": "n\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    readme = repo.get_contents("README.md")
    assert readme.decoded_content == b"# octo/shelf\n" and readme.type == "file"
    assert [c.path for c in repo.get_contents("docs")] == ["docs/topics"]
    assert repo.get_contents("docs/new.md", ref="shelve/cc").decoded_content == b"n\n"
    with pytest.raises(GithubException) as missing:
        repo.get_contents("docs/new.md")
    assert missing.value.status == 404
    comparison = repo.compare("main", "shelve/cc")
    assert (comparison.status, comparison.ahead_by, comparison.behind_by) == ("ahead", 1, 0)
    assert sorted((f.filename, f.status) for f in comparison.files) == [
        ("docs/new.md", "added"), ("docs/topics/2026-01-05-first.md", "modified")]
    assert repo.compare("shelve/cc", "main").status == "behind"
    commit = repo.get_commit("shelve/cc")
    assert commit.stats.total == sum(f.changes for f in commit.files)
    assert repo.get_collaborator_permission("github-actions[bot]") == "write"
    assert repo.get_collaborator_permission("octo") == "admin"
    assert repo.get_collaborator_permission("passer-by") == "read"
    sandbox.add_token("ghp_maintainer", "mai", permission="maintain", integration=False)
    assert repo.get_collaborator_permission("mai") == "write"


def test_merge_methods_make_real_commits(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    base = repo.get_branch("main").commit.sha
    head = branch_with(sandbox, "shelve/m", {"docs/m.md": "m\n"})
    pr = repo.create_pull(title="Merge me", body="", head="shelve/m", base="main")
    result = pr.merge(merge_method="merge")
    assert result.merged and result.message == "Pull Request successfully merged"
    merge = sandbox.store.commit(result.sha)
    assert merge.parents == (base, head)
    assert merge.message.startswith("Merge pull request #1 from octo/shelve/m\n\nMerge me")
    assert sandbox.store.ref("refs/heads/main") == result.sha
    merged = repo.get_pull(1)
    assert (merged.merged, merged.state, merged.merged_by.login, merged.merge_commit_sha) == (
        True, "closed", "github-actions[bot]", result.sha)
    assert merged.is_merged()
    with pytest.raises(GithubException) as twice:
        pr.merge()
    assert twice.value.status == 405

    branch_with(sandbox, "shelve/s", {"docs/s.md": "s\n"})
    squash = repo.create_pull(title="Squash me", body="", head="shelve/s", base="main")
    with pytest.raises(GithubException) as moved:
        squash.merge(merge_method="squash", sha="0" * 40)
    assert (moved.value.status, moved.value.data["message"]) == (
        409, "Head branch was modified. Review and try the merge again.")
    done = squash.merge(merge_method="squash")
    squashed = sandbox.store.commit(done.sha)
    assert squashed.parents == (result.sha,) and squashed.message.startswith("Squash me (#2)")


def test_merge_refused_on_conflict_and_when_method_disallowed(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    branch_with(sandbox, "left", {"README.md": "left\n"})
    branch_with(sandbox, "main", {"README.md": "main moved on\n"})
    pr = repo.create_pull(title="conflict", body="", head="left", base="main")
    assert (pr.mergeable, pr.mergeable_state) == (False, "dirty")
    with pytest.raises(GithubException) as conflict:
        pr.merge()
    assert (conflict.value.status, conflict.value.data["message"]) == (405, "Pull Request is not mergeable")
    sandbox.state.repo.allow_squash_merge = False
    branch_with(sandbox, "ok", {"docs/ok.md": "ok\n"})
    ok = repo.create_pull(title="ok", body="", head="ok", base="main")
    with pytest.raises(GithubException) as method:
        ok.merge(merge_method="squash")
    assert method.value.data["message"] == "Squash merges are not allowed on this repository."


def test_graphql_auto_merge_not_allowed_then_allowed(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    head = branch_with(sandbox, "shelve/auto", {"docs/auto.md": "a\n"})
    pr = repo.create_pull(title="auto", body="", head="shelve/auto", base="main")
    with pytest.raises(GithubException) as refused:
        pr.enable_automerge(merge_method="SQUASH")
    assert refused.value.data["errors"][0]["message"] == "Auto merge is not allowed for this repository"
    graphql = next(c for c in sandbox.calls if c.path == "/graphql")
    assert "enablePullRequestAutoMerge(input: $input)" in graphql.body["query"]
    assert graphql.body["variables"]["input"] == {"pullRequestId": pr.node_id, "mergeMethod": "SQUASH"}

    sandbox.state.repo.allow_auto_merge = True
    with pytest.raises(GithubException) as clean:
        pr.enable_automerge(merge_method="SQUASH")
    assert clean.value.data["errors"][0]["message"] == "Pull request is in clean status"
    sandbox.protect("main", ["memshelf-bot"])
    assert repo.get_pull(1).mergeable_state == "blocked"
    pr.enable_automerge(merge_method="SQUASH")
    assert repo.get_pull(1).auto_merge["merge_method"] == "squash"
    repo.get_commit(head).create_status("success", context="memshelf-bot")
    merged = repo.get_pull(1)
    assert merged.merged and merged.merged_by.login == "github-actions[bot]"
    assert sandbox.store.ref("refs/heads/main") == merged.merge_commit_sha


def test_request_validation_rejects_what_github_rejects(sandbox: Sandbox) -> None:
    status, body, _ = raw_request(sandbox, "PATCH", "/repos/octo/shelf/git/refs/heads/main",
                                  json.dumps({"force": "yes"}).encode())
    assert status == 422
    assert body["message"] == 'Invalid request.\n\n"sha" wasn\'t supplied.\nFor \'properties/force\', "yes" is not a boolean.'
    assert body["documentation_url"] == "https://docs.github.com/rest/git/refs#update-a-reference"
    status, body, _ = raw_request(sandbox, "POST", "/repos/octo/shelf/statuses/" + "a" * 40,
                                  json.dumps({"state": "great"}).encode())
    assert status == 422 and "is not a member of enum" in body["message"]
    status, body, _ = raw_request(sandbox, "POST", "/repos/octo/shelf/git/blobs", b"{not json")
    assert (status, body["message"]) == (400, "Problems parsing JSON")
    status, body, _ = raw_request(sandbox, "GET", "/repos/octo/shelf/pulls?per_page=lots")
    assert status == 422 and body["errors"][0]["field"] == "per_page"
    status, body, _ = raw_request(sandbox, "GET", "/repos/octo/shelf/no-such-endpoint")
    assert (status, body["message"]) == (404, "Not Found")
    assert sandbox.store.ref("refs/heads/main") is not None  # nothing was applied


def test_read_only_token_is_refused_writes_as_a_fork_token_is(sandbox: Sandbox) -> None:
    sandbox.add_token("ghs_fork", "github-actions[bot]", permission="read")
    branch_with(sandbox, "shelve/f", {"docs/f.md": "f\n"})
    writer = sandbox.github().get_repo("octo/shelf")
    writer.create_pull(title="f", body="", head="shelve/f", base="main")
    reader = sandbox.github("ghs_fork").get_repo("octo/shelf")
    pr = reader.get_pull(1)
    assert [f.filename for f in pr.get_files()] == ["docs/f.md"]
    with pytest.raises(GithubException) as refused:
        pr.create_issue_comment("cannot")
    assert (refused.value.status, refused.value.data["message"]) == (403, "Resource not accessible by integration")
    assert refused.value.data["documentation_url"] == (
        "https://docs.github.com/rest/issues/comments#create-an-issue-comment")


def test_every_call_is_recorded(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    repo.get_commit("main").create_status("success", context="ci")
    post = sandbox.calls_to("POST", "/statuses/" + repo.get_branch("main").commit.sha)
    assert len(post) == 1
    assert (post[0].body, post[0].status, post[0].login) == ({"state": "success", "context": "ci"}, 201,
                                                             "github-actions[bot]")


def test_renames_and_binary_files_in_pull_files(sandbox: Sandbox) -> None:
    store = sandbox.store
    main = store.ref("refs/heads/main") or ""
    episode = "docs/topics/2026-01-05-first.md"
    old_blob = next(e.sha for e in store.tree(store.commit(main).tree, recursive=True) if e.path == episode)
    tree = store.write_tree(store.commit(main).tree, [
        (episode, "100644", None), ("docs/archive/2026-01-05-first.md", "100644", old_blob),
        ("docs/chart.png", "100644", store.write_blob(b"\x89PNG\r\n\x1a\n\x00\x00binary"))])
    head = store.write_commit(tree, [main], "archive\n", WHO, WHO)
    store.update_ref("refs/heads/archive", head, None)
    pr = sandbox.github().get_repo("octo/shelf").create_pull(title="archive", body="", head="archive", base="main")
    files = {f.filename: f for f in pr.get_files()}
    moved = files["docs/archive/2026-01-05-first.md"]
    assert (moved.status, moved.previous_filename, moved.patch) == ("renamed", episode, None)
    assert (files["docs/chart.png"].status, files["docs/chart.png"].patch) == ("added", None)


def test_graphql_needs_a_token_and_auto_merge_can_be_disabled(sandbox: Sandbox) -> None:
    status, body, _ = raw_request(sandbox, "POST", "/graphql", json.dumps({"query": "{ viewer { login } }"}).encode(),
                                  token=None)
    assert (status, body["message"]) == (401, "This endpoint requires you to be authenticated.")
    sandbox.state.repo.allow_auto_merge = True
    sandbox.protect("main", ["memshelf-bot"])
    branch_with(sandbox, "shelve/d", {"docs/d.md": "d\n"})
    pr = sandbox.github().get_repo("octo/shelf").create_pull(title="d", body="", head="shelve/d", base="main")
    pr.enable_automerge()
    assert sandbox.state.pull(1).auto_merge is not None
    pr.disable_automerge()
    assert sandbox.state.pull(1).auto_merge is None


def test_a_fork_pull_request_shows_the_fork_as_its_head_and_merges_from_refs_pull(sandbox: Sandbox) -> None:
    sha = branch_with(sandbox, "scratch", {"docs/fork.md": "from a fork\n"})
    assert sandbox.store.delete_ref("refs/heads/scratch", sha)  # the commit lives only in the fork
    number = sandbox.open_fork_pull("outsider/shelf", "patch-1", sha, "From a fork", "outsider",
                                    maintainer_can_modify=True)
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.get_pull(number)
    head = pr.head
    assert (head.label, head.ref, head.sha, head.user.login) == ("outsider:patch-1", "patch-1", sha, "outsider")
    assert (head.repo.full_name, head.repo.fork, head.repo.owner.login) == ("outsider/shelf", True, "outsider")
    assert head.repo.url == f"{sandbox.api_url}/repos/outsider/shelf"
    assert pr.base.repo.full_name == "octo/shelf" and pr.maintainer_can_modify
    assert sandbox.store.ref(f"refs/pull/{number}/head") == sha
    assert [p.number for p in repo.get_pulls(head="outsider:patch-1")] == [number]
    assert list(repo.get_pulls(head="octo:patch-1")) == []
    assert [f.filename for f in pr.get_files()] == ["docs/fork.md"]
    merged = pr.merge(merge_method="merge")
    assert sandbox.store.commit(merged.sha).message.startswith(f"Merge pull request #{number} from outsider/patch-1")
