"""git over the sandbox's smart HTTP with a token, and `memshelf-bot sandbox` as a process."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.sandbox_fixtures import branch_with, raw_request

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox


def git(*args: str, cwd: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_CONFIG_NOSYSTEM": "1", "GIT_ASKPASS": "/bin/false",
           "HOME": str(cwd or Path.cwd()), "GIT_AUTHOR_NAME": "Agent", "GIT_AUTHOR_EMAIL": "agent@example.com",
           "GIT_COMMITTER_NAME": "Agent", "GIT_COMMITTER_EMAIL": "agent@example.com"}
    env = {k: v for k, v in env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
    return subprocess.run(["git", "-c", "credential.helper=", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, check=check)


def test_clone_push_and_the_api_sees_the_push(sandbox: Sandbox, tmp_path: Path) -> None:
    work = tmp_path / "work"
    git("clone", "--quiet", sandbox.git_url("ghs_agent"), str(work), cwd=tmp_path)
    assert (work / "docs" / "topics" / "2026-01-05-first.md").is_file()
    git("checkout", "--quiet", "-b", "shelve/pushed", cwd=work)
    (work / "docs" / "topics" / "2026-02-02-pushed.md").write_text("pushed\n", encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "shelve an episode", cwd=work)
    git("push", "--quiet", "origin", "shelve/pushed", cwd=work)
    local = git("rev-parse", "HEAD", cwd=work).stdout.strip()
    repo = sandbox.github().get_repo("octo/shelf")
    assert repo.get_branch("shelve/pushed").commit.sha == local

    pr = repo.create_pull(title="pushed", body="", head="shelve/pushed", base="main")
    (work / "docs" / "topics" / "2026-02-02-pushed.md").write_text("pushed again\n", encoding="utf-8")
    git("commit", "--quiet", "-am", "second", cwd=work)
    git("push", "--quiet", "origin", "shelve/pushed", cwd=work)
    assert repo.get_pull(pr.number).head.sha == git("rev-parse", "HEAD", cwd=work).stdout.strip()
    assert repo.get_pull(pr.number).commits == 2

    branch_with(sandbox, "main", {"RENDERED.md": "bot\n"})  # the bot commits through the API meanwhile
    git("fetch", "--quiet", "origin", cwd=work)
    assert git("rev-parse", "origin/main", cwd=work).stdout.strip() == sandbox.store.ref("refs/heads/main")
    pushes = [c for c in sandbox.calls if c.path.endswith("/git-receive-pack")]
    assert pushes and all(c.status == 200 and c.login == "github-actions[bot]" for c in pushes)


def test_no_token_is_401_and_read_only_cannot_push(sandbox: Sandbox, tmp_path: Path) -> None:
    denied = git("ls-remote", sandbox.git_url(None), cwd=tmp_path, check=False)
    assert denied.returncode != 0
    status, _, headers = raw_request(sandbox, "GET", "/octo/shelf.git/info/refs?service=git-upload-pack",
                                     token=None)
    assert status == 401 and headers["WWW-Authenticate"] == 'Basic realm="GitHub"'

    sandbox.add_token("ghs_fork", "fork-bot[bot]", permission="read")
    work = tmp_path / "fork"
    git("clone", "--quiet", sandbox.git_url("ghs_fork"), str(work), cwd=tmp_path)
    (work / "x.md").write_text("x\n", encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "x", cwd=work)
    refused = git("push", "origin", "HEAD:refs/heads/fork", cwd=work, check=False)
    assert refused.returncode != 0 and "403" in refused.stderr
    assert sandbox.store.ref("refs/heads/fork") is None


def test_a_push_of_unsigned_commits_to_a_signed_commits_branch_is_declined_as_github_does(
        sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.require_signed_commits("main")
    main = sandbox.store.ref("refs/heads/main")
    work = tmp_path / "work"
    git("clone", "--quiet", sandbox.git_url("ghs_agent"), str(work), cwd=tmp_path)
    (work / "x.md").write_text("x\n", encoding="utf-8")
    git("add", "-A", cwd=work)
    git("commit", "--quiet", "-m", "made locally", cwd=work)
    for args in ((), ("-c", "http.postBuffer=64")):  # the pack in one request, and gzip-chunked
        refused = git(*args, "push", "origin", "HEAD:main", "HEAD:refs/heads/elsewhere", cwd=work, check=False)
        assert refused.returncode != 0
        assert "! [remote rejected] HEAD -> main (push declined due to repository rule violations)" in refused.stderr
        assert "remote: GH013: Repository rule violations found for refs/heads/main." in refused.stderr
        assert sandbox.store.ref("refs/heads/main") == main and sandbox.store.ref("refs/heads/elsewhere") is None
    git("push", "--quiet", "origin", "HEAD:refs/heads/elsewhere", cwd=work)  # no rule there
    assert sandbox.store.ref("refs/heads/elsewhere") == git("rev-parse", "HEAD", cwd=work).stdout.strip()


def _first_line(proc: subprocess.Popen[str]) -> str:
    """The server's first stdout line; a guard (not a timing assumption) so a broken server fails."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout=60):
            proc.kill()
            pytest.fail("memshelf-bot sandbox printed nothing")
    return proc.stdout.readline()


def test_cli_prints_ready_and_serves_pull_request_creation(bare_repo: Path) -> None:
    cli = Path(sys.executable).parent / "memshelf-bot"
    proc = subprocess.Popen([str(cli), "sandbox", "--repo", str(bare_repo), "--port", "0", "--name", "octo/shelf",
                             "--token", "ghs_pinned"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = _first_line(proc)
        assert line.startswith("ready http://127.0.0.1:")
        base = line.split()[1]
        work = bare_repo.parent / "cli-work"
        git("clone", "--quiet", f"http://x-access-token:ghs_pinned@{base.split('://')[1]}/octo/shelf.git", str(work))
        git("checkout", "--quiet", "-b", "shelve/cli", cwd=work)
        (work / "cli.md").write_text("cli\n", encoding="utf-8")
        git("add", "-A", cwd=work)
        git("commit", "--quiet", "-m", "cli", cwd=work)
        git("push", "--quiet", "origin", "shelve/cli", cwd=work)

        body = json.dumps({"title": "From the CLI", "head": "shelve/cli", "base": "main"}).encode()
        request = urllib.request.Request(f"{base}/repos/octo/shelf/pulls", data=body, method="POST",
                                         headers={"Authorization": "Bearer ghs_pinned",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            created = json.loads(response.read())
            assert response.status == 201
            assert response.headers["Location"] == f"{base}/repos/octo/shelf/pulls/1"
        assert (created["number"], created["head"]["ref"], created["html_url"]) == (
            1, "shelve/cli", f"{base}/octo/shelf/pull/1")
        wrong = urllib.request.Request(f"{base}/repos/octo/shelf", headers={"Authorization": "token nope"})
        with pytest.raises(urllib.error.HTTPError) as unauthorized:
            urllib.request.urlopen(wrong, timeout=30)
        assert unauthorized.value.code == 401
    finally:
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "sandbox:" not in err  # no response broke the OpenAPI description


def test_cli_rejects_a_bad_name(bare_repo: Path) -> None:
    cli = Path(sys.executable).parent / "memshelf-bot"
    done = subprocess.run([str(cli), "sandbox", "--repo", str(bare_repo), "--name", "no-slash"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "OWNER/REPO" in done.stderr
