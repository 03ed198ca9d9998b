"""The sandbox plays GitHub's side of a GitHub App: JWTs, installations, scoped installation tokens."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from github import Auth, Github, GithubIntegration

from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests import sandbox_app_fixtures
from tests.sandbox_app_fixtures import APP_ID, private_pem
from tests.sandbox_fixtures import raw_request, seed_tree

pem = sandbox_app_fixtures.pem


@pytest.fixture
def app_sandbox(tmp_path: Path, pem: bytes) -> Iterator[Sandbox]:
    """Two repositories of one owner, the App installed on the owner."""
    bare, other = tmp_path / "shelf.git", tmp_path / "other.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    seed_bare_repo(seed_tree(tmp_path / "seed2"), other)
    app = App.from_private_key(APP_ID, pem, slug="memshelf-bot")
    with Sandbox.start(bare, "octo/shelf", app=app, more=[(other, "octo/other")],
                       log=tmp_path / "calls.jsonl") as sb:
        yield sb
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


def signed(pem: bytes, **claims: object) -> str:
    now = int(time.time())
    return jwt.encode({"iat": now - 60, "exp": now + 300, "iss": str(APP_ID), **claims}, pem, algorithm="RS256")


def integration(sb: Sandbox, pem: bytes) -> GithubIntegration:
    return GithubIntegration(auth=Auth.AppAuth(APP_ID, pem.decode()), base_url=sb.api_url, retry=None)


def test_pygithub_app_auth_gets_an_installation_token_and_acts_as_the_bot(app_sandbox: Sandbox, pem: bytes) -> None:
    gi = integration(app_sandbox, pem)
    assert (gi.get_app().slug, gi.get_app().id) == ("memshelf-bot", APP_ID)
    installation = gi.get_repo_installation("octo", "shelf")
    assert [i.id for i in gi.get_installations()] == [installation.id]
    auth = Auth.AppAuth(APP_ID, pem.decode()).get_installation_auth(installation.id)
    gh = Github(auth=auth, base_url=app_sandbox.api_url, retry=None)
    repo = gh.get_repo("octo/shelf")
    main = repo.get_branch("main").commit.sha
    repo.create_git_ref("refs/heads/shelve/app", main)
    blob = repo.create_git_blob("hi\n", "utf-8")
    tree = repo.create_git_tree([], base_tree=repo.get_git_tree(main))
    assert blob.sha and tree.sha
    run = repo.create_check_run("memshelf-bot", main, status="in_progress")
    assert run.app.id == APP_ID and run.app.slug == "memshelf-bot"
    assert auth.token.startswith("ghs_")


def test_installation_token_identity_is_the_apps_bot(app_sandbox: Sandbox, pem: bytes) -> None:
    gi = integration(app_sandbox, pem)
    inst = gi.get_repo_installation("octo", "shelf")
    token = gi.get_access_token(inst.id)
    assert token.expires_at.timestamp() == pytest.approx(time.time() + 3600, abs=120)
    sb = app_sandbox
    branch = sb.store.ref("refs/heads/main")
    assert branch
    repo = sb.github(token.token).get_repo("octo/shelf")
    repo.create_git_ref("refs/heads/shelve/bot", branch)
    sb.store.update_ref("refs/heads/shelve/bot", _commit_on(sb, branch), branch)
    pr = repo.create_pull(title="t", body="", head="shelve/bot", base="main")
    comment = pr.as_issue().create_comment("hello")
    assert (comment.user.login, comment.user.type) == ("memshelf-bot[bot]", "Bot")
    assert comment.performed_via_github_app.slug == "memshelf-bot"
    assert pr.user.login == "memshelf-bot[bot]"


def _commit_on(sb: Sandbox, parent: str) -> str:
    from memshelf_sandbox.gitstore import Person

    who = Person("A", "a@example.com", "2026-01-01T00:00:00Z")
    tree = sb.store.write_tree(sb.store.commit(parent).tree, [("docs/x.md", "100644", sb.store.write_blob(b"x\n"))])
    return sb.store.write_commit(tree, [parent], "x\n", who, who)


@pytest.mark.parametrize("case", ["forged", "expired", "wrong_iss", "too_long", "issued_in_future", "hs256"])
def test_jwt_refused(app_sandbox: Sandbox, pem: bytes, case: str) -> None:
    now = int(time.time())
    token = {
        "forged": lambda: signed(private_pem()),
        "expired": lambda: signed(pem, iat=now - 900, exp=now - 300),
        "wrong_iss": lambda: signed(pem, iss="4243"),
        "too_long": lambda: signed(pem, exp=now + 3600),
        "issued_in_future": lambda: signed(pem, iat=now + 600, exp=now + 900),
        "hs256": lambda: jwt.encode({"iat": now, "exp": now + 60, "iss": str(APP_ID)}, "a shared secret that is not the key!", algorithm="HS256"),
    }[case]()
    for method, path, body in (("GET", "/app", None), ("GET", "/app/installations", None),
                               ("GET", "/repos/octo/shelf/installation", None),
                               ("POST", f"/app/installations/{_installation(app_sandbox)}/access_tokens", b"{}")):
        status, data, _ = _bearer(app_sandbox, method, path, token, body)
        assert status == 401, (case, path, data)
        assert data["message"]


def test_jwt_accepted_and_plain_tokens_refused(app_sandbox: Sandbox, pem: bytes) -> None:
    status, data, _ = _bearer(app_sandbox, "GET", "/app", signed(pem))
    assert status == 200 and data["slug"] == "memshelf-bot" and data["permissions"]["checks"] == "write"
    status, data, _ = _bearer(app_sandbox, "GET", "/app", "ghs_sandbox")
    assert (status, data["message"]) == (401, "A JSON web token could not be decoded")
    # a JWT is not a token for a repository
    status, _, _ = _bearer(app_sandbox, "GET", "/repos/octo/shelf", signed(pem))
    assert status == 401


def _installation(sb: Sandbox) -> int:
    assert sb.app is not None
    return next(iter(sb.app.installations))


def _bearer(sb: Sandbox, method: str, path: str, token: str, body: bytes | None = None) -> tuple[int, dict, dict]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(f"{sb.api_url}{path}", data=body, method=method,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null"), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null"), dict(error.headers)


def _mint(sb: Sandbox, pem: bytes, body: dict) -> tuple[int, dict]:
    status, data, _ = _bearer(sb, "POST", f"/app/installations/{_installation(sb)}/access_tokens", signed(pem),
                              json.dumps(body).encode())
    return status, data


def test_token_scoped_to_repositories(app_sandbox: Sandbox, pem: bytes) -> None:
    status, data = _mint(app_sandbox, pem, {"repositories": ["other"]})
    assert status == 201 and data["repository_selection"] == "selected"
    assert [r["full_name"] for r in data["repositories"]] == ["octo/other"]
    token = data["token"]
    assert raw_request(app_sandbox, "GET", "/repos/octo/other", token=token)[0] == 200
    assert raw_request(app_sandbox, "GET", "/repos/octo/shelf", token=token)[0] == 404
    other_id = app_sandbox.core("octo/other").state.repo.id
    status, data = _mint(app_sandbox, pem, {"repository_ids": [other_id]})
    assert status == 201 and [r["id"] for r in data["repositories"]] == [other_id]
    status, data = _mint(app_sandbox, pem, {"repositories": ["nope"]})
    assert status == 422 and "not accessible to the parent installation" in data["errors"][0]["message"]


def test_token_scoped_to_permissions(app_sandbox: Sandbox, pem: bytes, tmp_path: Path) -> None:
    status, data = _mint(app_sandbox, pem, {"permissions": {"contents": "read", "pull_requests": "write"}})
    assert status == 201 and data["permissions"] == {"contents": "read", "pull_requests": "write", "metadata": "read"}
    token = data["token"]
    blob = json.dumps({"content": "x", "encoding": "utf-8"}).encode()
    status, body, _ = raw_request(app_sandbox, "POST", "/repos/octo/shelf/git/blobs", blob, token=token)
    assert (status, body["message"]) == (403, "Resource not accessible by integration")
    assert raw_request(app_sandbox, "GET", "/repos/octo/shelf/contents/README.md", token=token)[0] == 200
    run = json.dumps({"name": "x", "head_sha": app_sandbox.store.ref("refs/heads/main")}).encode()
    assert raw_request(app_sandbox, "POST", "/repos/octo/shelf/check-runs", run, token=token)[0] == 403
    # clone works with contents: read; a push does not
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", app_sandbox.git_url(token), str(clone)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(clone), "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True)
    push = subprocess.run(["git", "-C", str(clone), "push", "-q", "origin", "HEAD:refs/heads/shelve/x"],
                          capture_output=True, text=True)
    assert push.returncode != 0 and "403" in push.stderr
    status, data = _mint(app_sandbox, pem, {"permissions": {"administration": "write"}})
    assert status == 422 and "not granted" in data["errors"][0]["message"]


def test_expired_token_is_bad_credentials(app_sandbox: Sandbox, pem: bytes) -> None:
    _, data = _mint(app_sandbox, pem, {})
    token = data["token"]
    assert raw_request(app_sandbox, "GET", "/repos/octo/shelf", token=token)[0] == 200
    assert app_sandbox.app is not None
    app_sandbox.app.expire(token)
    status, body, _ = raw_request(app_sandbox, "GET", "/repos/octo/shelf", token=token)
    assert (status, body["message"]) == (401, "Bad credentials")


def test_log_masks_tokens_and_jwts(app_sandbox: Sandbox, pem: bytes, tmp_path: Path) -> None:
    _, data = _mint(app_sandbox, pem, {"repositories": ["shelf"]})
    token = data["token"]
    body = json.dumps({"body": f"leaked {token} and {signed(pem)}"}).encode()
    raw_request(app_sandbox, "POST", "/repos/octo/shelf/issues/99/comments", body, token=token)
    lines = [json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()]
    text = json.dumps(lines)
    assert token not in text and "eyJ" not in text
    posted = [line for line in lines if line["path"].endswith("/comments")]
    assert posted[0]["status"] == 404 and posted[0]["body"] == {"body": "leaked *** and ***"}
    assert posted[0]["login"] == "memshelf-bot[bot]"
    assert any(line["path"].endswith("/access_tokens") and line["status"] == 201 for line in lines)


def test_cli_serves_several_repositories_for_one_app(tmp_path: Path, pem: bytes) -> None:
    """`memshelf-bot sandbox` with two repositories, the App, a user table and a log."""
    import os
    import sys

    key = tmp_path / "app.pem"
    key.write_bytes(pem)
    args = [sys.executable, "-m", "bot.cli", "sandbox", "--app-id", str(APP_ID), "--app-private-key", str(key),
            "--user", "reader=ghp_reader:read", "--user", "maintainer=ghp_maint", "--log", str(tmp_path / "log"),
            "--webhook-url", "http://127.0.0.1:9/webhook", "--webhook-secret", "s"]
    for n in range(2):
        bare = tmp_path / f"r{n}.git"
        seed_bare_repo(seed_tree(tmp_path / f"seed{n}"), bare)
        args += ["--repo", str(bare), "--name", f"octo/shelf{n}"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ready http://127.0.0.1:"), line
        base = line.split()[1]

        class Remote:
            api_url = base

        sb: Any = Remote()
        gi = GithubIntegration(auth=Auth.AppAuth(APP_ID, pem.decode()), base_url=base, retry=None)
        inst = gi.get_repo_installation("octo", "shelf1")
        assert gi.get_repo_installation("octo", "shelf0").id == inst.id
        token = gi.get_access_token(inst.id).token
        repo = Github(auth=Auth.Token(token), base_url=base, retry=None).get_repo("octo/shelf1")
        assert repo.get_collaborator_permission("reader") == "read"
        assert repo.get_collaborator_permission("maintainer") == "write"
        assert raw_request(sb, "GET", "/repos/octo/shelf0", token="ghp_reader")[0] == 200
        status, body, _ = raw_request(sb, "POST", "/repos/octo/shelf0/git/blobs",
                                      b'{"content": "x"}', token="ghp_reader")
        assert (status, body["message"]) == (403, "Resource not accessible by personal access token")
        lines = [json.loads(x) for x in (tmp_path / "log").read_text().splitlines()]
        assert any(x["path"] == "/repos/octo/shelf0/git/blobs" and x["status"] == 403 for x in lines)
        assert token not in json.dumps(lines)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert proc.returncode == 0


def test_one_installation_per_owner(tmp_path: Path, pem: bytes) -> None:
    """A token of one owner's installation reaches none of another owner's repositories."""
    bare, other = tmp_path / "a.git", tmp_path / "b.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    seed_bare_repo(seed_tree(tmp_path / "seed2"), other)
    with Sandbox.start(bare, "octo/shelf", app=App.from_private_key(APP_ID, pem),
                       more=[(other, "elsewhere/shelf")]) as sb:
        gi = integration(sb, pem)
        mine, theirs = gi.get_repo_installation("octo", "shelf"), gi.get_repo_installation("elsewhere", "shelf")
        assert mine.id != theirs.id and theirs.account.login == "elsewhere"
        assert theirs.account.id != mine.account.id
        token = gi.get_access_token(mine.id).token
        assert raw_request(sb, "GET", "/repos/octo/shelf", token=token)[0] == 200
        assert raw_request(sb, "GET", "/repos/elsewhere/shelf", token=token)[0] == 404
        assert sb.validation_errors == []


def test_commits_github_makes_itself_are_verified(app_sandbox: Sandbox, pem: bytes) -> None:
    """A Git Data API commit without author/committer is GitHub's own, so it shows as verified;
    one with an explicit author does not."""
    from github import InputGitAuthor

    gi = integration(app_sandbox, pem)
    token = gi.get_access_token(gi.get_repo_installation("octo", "shelf").id).token
    repo = Github(auth=Auth.Token(token), base_url=app_sandbox.api_url, retry=None).get_repo("octo/shelf")
    main = repo.get_git_commit(repo.get_branch("main").commit.sha)
    plain = repo.create_git_commit("render", main.tree, [main])
    authored = repo.create_git_commit("render", main.tree, [main],
                                      author=InputGitAuthor("Bot", "bot@example.com"))
    assert plain.raw_data["verification"]["verified"] is True
    assert repo.get_commit(plain.sha).commit.raw_data["verification"]["reason"] == "valid"
    assert authored.raw_data["verification"] == {"verified": False, "reason": "unsigned", "signature": None,
                                                 "payload": None, "verified_at": None}
    assert plain.author.name == "memshelf-bot[bot]"


def test_ruleset_requiring_signed_commits(app_sandbox: Sandbox, pem: bytes) -> None:
    """Only commits GitHub signed move a branch whose ruleset requires verified signatures."""
    from github import GithubException, InputGitAuthor

    app_sandbox.require_signed_commits("main")
    gi = integration(app_sandbox, pem)
    token = gi.get_access_token(gi.get_repo_installation("octo", "shelf").id).token
    repo = Github(auth=Auth.Token(token), base_url=app_sandbox.api_url, retry=None).get_repo("octo/shelf")
    main = repo.get_git_commit(repo.get_branch("main").commit.sha)
    ref = repo.get_git_ref("heads/main")
    authored = repo.create_git_commit("render", main.tree, [main], author=InputGitAuthor("Bot", "bot@example.com"))
    with pytest.raises(GithubException) as refused:
        ref.edit(authored.sha)
    assert refused.value.status == 422 and refused.value.data["message"].startswith("Repository rule violations found")
    plain = repo.create_git_commit("render", main.tree, [main])
    ref.edit(plain.sha)
    assert app_sandbox.store.ref("refs/heads/main") == plain.sha


def test_faults_reach_the_app_endpoints(app_sandbox: Sandbox, pem: bytes) -> None:
    """A 502 on the token endpoint once (the App's retry path), then tokens again."""
    inst = _installation(app_sandbox)
    app_sandbox.faults.server_error(502, "POST", rf"/app/installations/{inst}/access_tokens")
    assert _mint(app_sandbox, pem, {})[0] == 502
    assert _mint(app_sandbox, pem, {})[0] == 201


def test_installation_lists_its_repositories(app_sandbox: Sandbox, pem: bytes) -> None:
    """PyGithub's `Installation.get_repos()`: every repository of the installation, or the token's few."""
    gi = integration(app_sandbox, pem)
    inst = gi.get_repo_installation("octo", "shelf")
    assert sorted(r.full_name for r in inst.get_repos()) == ["octo/other", "octo/shelf"]
    _, data = _mint(app_sandbox, pem, {"repositories": ["other"]})
    status, body, _ = raw_request(app_sandbox, "GET", "/installation/repositories", token=data["token"])
    assert (status, body["total_count"], body["repository_selection"]) == (200, 1, "selected")
    assert raw_request(app_sandbox, "GET", "/installation/repositories", token="ghs_sandbox")[0] == 403
