"""The sandbox delivers signed webhooks when something happens, and records every delivery."""

from __future__ import annotations

import hashlib
import hmac
import json
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jwt
import pytest
from github import InputGitTreeElement

from memshelf_sandbox import Sandbox, seed_bare_repo, webhooks
from memshelf_sandbox.app import App
from tests import sandbox_app_fixtures
from tests.sandbox_app_fixtures import APP_ID, SECRET, Received, Receiver
from tests.sandbox_fixtures import raw_request, seed_tree

pem, receiver = sandbox_app_fixtures.pem, sandbox_app_fixtures.receiver

@pytest.fixture
def hooked(tmp_path: Path, pem: bytes, receiver: tuple[Receiver, str]) -> Iterator[tuple[Sandbox, Receiver]]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    app = App.from_private_key(APP_ID, pem)
    with Sandbox.start(bare, "octo/shelf", app=app, webhook=(receiver[1], SECRET)) as sb:
        yield sb, receiver[0]
        assert sb.deliveries.wait_idle(60), "deliveries still pending at the end of the test"
        assert sb.validation_errors == [], "a response or webhook broke GitHub's descriptions"


def assert_genuine(sb: Sandbox, got: Received) -> None:
    """Signed over the raw body, GitHub's headers, valid against the official schema."""
    expected = "sha256=" + hmac.new(SECRET.encode(), got.raw, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(got.headers["X-Hub-Signature-256"], expected)
    assert got.headers["User-Agent"].startswith("GitHub-Hookshot/")
    assert len(got.headers["X-GitHub-Delivery"]) == 36 and got.headers["X-GitHub-Hook-ID"].isdigit()
    assert got.headers["X-GitHub-Hook-Installation-Target-Type"] == "integration"
    assert got.headers["X-GitHub-Hook-Installation-Target-ID"] == str(APP_ID)
    assert webhooks.errors(got.name, got.payload) == []
    assert sb.app is not None
    assert got.payload["installation"]["id"] == next(iter(sb.app.installations))
    assert got.payload["repository"]["full_name"] == "octo/shelf"


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def clone(sb: Sandbox, tmp_path: Path, token: str = "ghp_agent") -> Path:
    sb.add_token(token, "agent", "write", integration=False)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", sb.git_url(token), str(work)], check=True, capture_output=True)
    git("config", "user.name", "Agent", cwd=work)
    git("config", "user.email", "agent@example.com", cwd=work)
    return work


def commit(work: Path, name: str, text: str) -> str:
    (work / name).parent.mkdir(parents=True, exist_ok=True)
    (work / name).write_text(text, encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "-q", "-m", f"add {name}", cwd=work)
    return git("rev-parse", "HEAD", cwd=work)


def test_git_push_delivers_push_and_check_suite(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = hooked
    work = clone(sb, tmp_path)
    sha = commit(work, "docs/a.md", "a\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/a", cwd=work)
    got = box.wait_for(2)
    assert [g.name for g in got] == ["push", "check_suite.requested"]
    for g in got:
        assert_genuine(sb, g)
    push = got[0].payload
    assert (push["ref"], push["after"], push["created"]) == ("refs/heads/shelve/a", sha, True)
    assert push["head_commit"]["added"] == ["docs/a.md"] and push["sender"]["login"] == "agent"
    suite = got[1].payload["check_suite"]
    assert (suite["head_sha"], suite["head_branch"], suite["app"]["id"]) == (sha, "shelve/a", APP_ID)


def test_a_push_keeps_its_sender_when_another_client_writes_meanwhile(hooked: tuple[Sandbox, Receiver],
                                                                      tmp_path: Path, pem: bytes,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The App writes through REST just as an agent's `git push` has moved the branch: the push is
    still the agent's. (The heads are compared around every write, so before writes were one at
    a time the App's request could report the agent's moved branch as a push by the App's bot,
    which the App then ignores as its own: a pull request that never opened.)"""
    sb, box = hooked
    from github import Auth, Github

    from memshelf_sandbox import server, smart_http

    assert sb.app is not None
    auth = Auth.AppAuth(APP_ID, pem.decode()).get_installation_auth(next(iter(sb.app.installations)))
    repo = Github(auth=auth, base_url=sb.api_url, retry=None).get_repo("octo/shelf")
    real_serve = smart_http.serve

    def serve_then_the_app_writes(*args: Any, **kwargs: Any) -> Any:
        cgi = real_serve(*args, **kwargs)
        if args[4] == "POST" and "receive-pack" in args[3]:  # the branch has moved; no webhook yet
            writer = threading.Thread(target=repo.create_git_blob, args=("meanwhile\n", "utf-8"))
            writer.start()
            writer.join(1.0)  # done at once when nothing orders the writes; else it waits for the push
        return cgi

    monkeypatch.setattr(server.smart_http, "serve", serve_then_the_app_writes)
    work = clone(sb, tmp_path)
    commit(work, "docs/g.md", "g\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/g", cwd=work)
    push = next(g for g in box.wait_for(2) if g.name == "push").payload
    assert (push["ref"], push["sender"]["login"]) == ("refs/heads/shelve/g", "agent")


def test_pull_request_opened_synchronized_merged(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = hooked
    work = clone(sb, tmp_path)
    first = commit(work, "docs/b.md", "b\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/b", cwd=work)
    box.wait_for(2)
    repo = sb.github("ghp_agent").get_repo("octo/shelf")
    pr = repo.create_pull(title="Shelve b", body="", head="shelve/b", base="main")
    opened = box.wait_for(3)[2]
    assert opened.name == "pull_request.opened" and opened.payload["pull_request"]["head"]["sha"] == first
    second = commit(work, "docs/b2.md", "b2\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/b", cwd=work)
    got = box.wait_for(6)[3:]
    assert [g.name for g in got] == ["push", "check_suite.requested", "pull_request.synchronize"]
    sync = got[2].payload
    assert (sync["before"], sync["after"], sync["number"]) == (first, second, pr.number)
    pr.merge()
    got = box.wait_for(9)[6:]
    assert [g.name for g in got] == ["pull_request.closed", "push", "check_suite.requested"]
    closed = got[0].payload["pull_request"]
    assert closed["merged"] is True and closed["merge_commit_sha"] == got[1].payload["after"]
    assert got[1].payload["ref"] == "refs/heads/main"
    for g in box.got:
        assert_genuine(sb, g)
    assert len({g.headers["X-GitHub-Delivery"] for g in box.got}) == len(box.got)


def test_issue_comment_created(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = hooked
    work = clone(sb, tmp_path)
    commit(work, "docs/c.md", "c\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/c", cwd=work)
    repo = sb.github("ghp_agent").get_repo("octo/shelf")
    pr = repo.create_pull(title="c", body="", head="shelve/c", base="main")
    pr.as_issue().create_comment("/shelf resolve")
    got = box.wait_for(4)
    comment = got[3]
    assert comment.name == "issue_comment.created"
    assert_genuine(sb, comment)
    body = comment.payload
    assert (body["comment"]["body"], body["sender"]["login"], body["issue"]["number"]) == (
        "/shelf resolve", "agent", pr.number)


def _jwt(pem: bytes) -> str:
    now = int(time.time())
    return jwt.encode({"iat": now - 60, "exp": now + 300, "iss": str(APP_ID)}, pem, algorithm="RS256")


def _app_get(sb: Sandbox, pem: bytes, path: str) -> tuple[Any, dict[str, str]]:
    request = urllib.request.Request(f"{sb.api_url}{path}", headers={"Authorization": f"Bearer {_jwt(pem)}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 200
        return json.loads(response.read()), dict(response.headers)


def test_drop_duplicate_and_redeliver(hooked: tuple[Sandbox, Receiver], tmp_path: Path, pem: bytes) -> None:
    sb, box = hooked
    status, mode, _ = raw_request(sb, "POST", "/_sandbox/webhooks/mode",
                                  json.dumps({"drop_next": 1, "duplicate_next": 1}).encode())
    assert (status, mode) == (200, {"drop_next": 1, "duplicate_next": 1})
    work = clone(sb, tmp_path)
    commit(work, "docs/d.md", "d\n")
    git("push", "-q", "origin", "HEAD:refs/heads/shelve/d", cwd=work)  # push dropped; check_suite twice
    assert sb.deliveries.wait_idle(30)
    got = box.wait_for(2)
    assert [g.name for g in got] == ["check_suite.requested", "check_suite.requested"]
    assert got[0].headers["X-GitHub-Delivery"] == got[1].headers["X-GitHub-Delivery"]
    assert got[0].raw == got[1].raw

    listing, _ = _app_get(sb, pem, "/app/hook/deliveries")
    assert [(d["event"], d["status_code"], d["redelivery"]) for d in listing] == [
        ("check_suite", 202, False), ("check_suite", 202, False), ("push", 502, False)]
    dropped = listing[-1]
    assert "dropped" in dropped["status"]
    failed, _ = _app_get(sb, pem, "/app/hook/deliveries?status=failure")
    assert [d["id"] for d in failed] == [dropped["id"]]

    request = urllib.request.Request(f"{sb.api_url}/app/hook/deliveries/{dropped['id']}/attempts", method="POST",
                                     headers={"Authorization": f"Bearer {_jwt(pem)}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 202
    got = box.wait_for(3)
    assert got[2].name == "push" and got[2].payload["ref"] == "refs/heads/shelve/d"
    assert sb.deliveries.wait_idle(30)  # the receiver has the request before the sandbox records the answer
    listing, _ = _app_get(sb, pem, "/app/hook/deliveries?redelivery=true")
    assert [(d["guid"], d["status_code"]) for d in listing] == [(dropped["guid"], 202)]
    full, _ = _app_get(sb, pem, f"/app/hook/deliveries/{listing[0]['id']}")
    assert full["request"]["payload"]["ref"] == "refs/heads/shelve/d"
    assert full["request"]["headers"]["X-GitHub-Event"] == "push"

    # the sandbox's own redeliver switch does the same
    assert raw_request(sb, "POST", f"/_sandbox/deliveries/{dropped['id']}/redeliver")[0] == 202
    assert box.wait_for(4)[3].headers["X-GitHub-Delivery"] == dropped["guid"]


def test_deliveries_cursor_paging_and_failures(hooked: tuple[Sandbox, Receiver], tmp_path: Path,
                                              pem: bytes) -> None:
    sb, box = hooked
    box.status = 500
    work = clone(sb, tmp_path)
    for n in range(3):
        commit(work, f"docs/p{n}.md", f"{n}\n")
        git("push", "-q", "origin", f"HEAD:refs/heads/shelve/p{n}", cwd=work)
    assert sb.deliveries.wait_idle(30)
    page, headers = _app_get(sb, pem, "/app/hook/deliveries?per_page=4")
    assert len(page) == 4 and all(d["status_code"] == 500 for d in page)
    assert page[0]["status"] == "Invalid HTTP Response: 500"
    link = headers["Link"]
    assert 'rel="next"' in link and "cursor=" in link
    next_url = link.split(";")[0].strip("<>")
    rest, headers = _app_get(sb, pem, next_url.removeprefix(sb.api_url))
    assert len(rest) == 2 and "Link" not in headers
    assert {d["id"] for d in page}.isdisjoint(d["id"] for d in rest)
    pushes, _ = _app_get(sb, pem, "/app/hook/deliveries?event=push")
    assert [d["event"] for d in pushes] == ["push"] * 3


def test_delivery_never_blocks_the_request(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    """While the webhook endpoint hangs, the REST call that caused an event still answers."""
    sb, box = hooked
    box.hold.clear()
    safety = threading.Timer(30, box.hold.set)  # a blocked request would be freed only by this
    safety.start()
    try:
        work = clone(sb, tmp_path)
        commit(work, "docs/e.md", "e\n")
        git("push", "-q", "origin", "HEAD:refs/heads/shelve/e", cwd=work)
        repo = sb.github("ghp_agent").get_repo("octo/shelf")
        repo.create_pull(title="e", body="", head="shelve/e", base="main")
        assert not box.hold.is_set() and box.got == []
    finally:
        box.hold.set()
        safety.cancel()
    assert [g.name for g in box.wait_for(3)] == ["push", "check_suite.requested", "pull_request.opened"]


def test_closed_reopened_and_api_pushes_by_the_app(hooked: tuple[Sandbox, Receiver], tmp_path: Path,
                                                   pem: bytes) -> None:
    """Closing without merging and reopening are events too; a ref moved through the Git Data API
    with an installation token is a push whose sender is the App's bot."""
    sb, box = hooked
    from github import Auth, Github

    assert sb.app is not None
    auth = Auth.AppAuth(APP_ID, pem.decode()).get_installation_auth(next(iter(sb.app.installations)))
    repo = Github(auth=auth, base_url=sb.api_url, retry=None).get_repo("octo/shelf")
    main = repo.get_branch("main").commit
    blob = repo.create_git_blob("f\n", "utf-8")
    tree = repo.create_git_tree([InputGitTreeElement("docs/f.md", "100644", "blob", sha=blob.sha)],
                                base_tree=repo.get_git_tree(main.sha))
    made = repo.create_git_commit("add f", tree, [repo.get_git_commit(main.sha)])
    repo.create_git_ref("refs/heads/shelve/f", made.sha)
    pr = repo.create_pull(title="f", body="", head="shelve/f", base="main")
    pr.edit(state="closed")
    pr.edit(state="open")
    got = box.wait_for(5)
    assert [g.name for g in got] == ["push", "check_suite.requested", "pull_request.opened",
                                     "pull_request.closed", "pull_request.reopened"]
    assert got[0].payload["sender"]["login"] == "memshelf-bot[bot]"
    assert got[0].payload["head_commit"]["author"]["email"].endswith("+memshelf-bot[bot]@users.noreply.github.com")
    assert got[3].payload["pull_request"]["merged"] is False
    for g in got:
        assert_genuine(sb, g)


def test_ping(hooked: tuple[Sandbox, Receiver]) -> None:
    sb, box = hooked
    assert raw_request(sb, "POST", "/_sandbox/webhooks/ping", b"")[0] == 202
    got = box.wait_for(1)[0]
    assert got.event == "ping" and webhooks.errors("ping", got.payload) == []
    assert got.payload["hook"]["app_id"] == APP_ID and got.payload["hook"]["type"] == "App"
    assert str(got.payload["hook_id"]) == got.headers["X-GitHub-Hook-ID"]
