"""`--fork OWNER/REPO`: the sandbox serves a fork of the repository over git, its owner pushes a
branch there, opens a pull request from it (`head: "OWNER:branch"`), and later pushes move the
pull request (`synchronize`) — the way a fork's pull request reaches an App on GitHub."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from github import GithubException

from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests import sandbox_app_fixtures
from tests.e2e.test_sandbox_app_webhooks import assert_genuine, commit, git
from tests.sandbox_app_fixtures import APP_ID, SECRET, Receiver
from tests.sandbox_fixtures import seed_tree

pem, receiver = sandbox_app_fixtures.pem, sandbox_app_fixtures.receiver
FORK = "outsider/shelf"


@pytest.fixture
def forked(tmp_path: Path, pem: bytes, receiver: tuple[Receiver, str]) -> Iterator[tuple[Sandbox, Receiver]]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    with Sandbox.start(bare, "octo/shelf", app=App.from_private_key(APP_ID, pem), webhook=(receiver[1], SECRET),
                       forks=[FORK]) as sb:
        sb.add_token("ghp_outsider", "outsider", "read", integration=False)
        sb.add_token("ghp_agent", "agent", "write", integration=False)
        yield sb, receiver[0]
        assert sb.deliveries.wait_idle(60)
        assert sb.validation_errors == []


def clone_fork(sb: Sandbox, tmp_path: Path) -> Path:
    work = tmp_path / "fork"
    subprocess.run(["git", "clone", "-q", sb.git_url("ghp_outsider", FORK), str(work)], check=True,
                   capture_output=True)
    git("config", "user.name", "Outsider", cwd=work)
    git("config", "user.email", "outsider@example.com", cwd=work)
    return work


def test_a_pull_request_from_a_fork(forked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = forked
    work = clone_fork(sb, tmp_path)
    assert git("rev-parse", "HEAD", cwd=work) == sb.store.ref("refs/heads/main")  # a fork starts as its base
    first = commit(work, "docs/topics/from-fork.md", "from a fork\n")
    git("push", "-q", "origin", "HEAD:refs/heads/patch-1", cwd=work)
    assert sb.store.ref("refs/heads/patch-1") is None  # the base repository has no such branch
    pr = sb.github("ghp_outsider").get_repo("octo/shelf").create_pull(
        title="From a fork", body="", head="outsider:patch-1", base="main")
    assert (pr.head.repo.full_name, pr.head.label, pr.head.sha) == (FORK, "outsider:patch-1", first)
    assert [f.filename for f in pr.get_files()] == ["docs/topics/from-fork.md"]
    opened = box.wait_for(1)
    assert [g.name for g in opened] == ["pull_request.opened"]  # the push to the fork is not the base's
    assert opened[0].payload["pull_request"]["head"]["repo"]["full_name"] == FORK
    second = commit(work, "docs/topics/from-fork-2.md", "more\n")
    git("push", "-q", "origin", "HEAD:refs/heads/patch-1", cwd=work)
    got = box.wait_for(2)
    assert [g.name for g in got] == ["pull_request.opened", "pull_request.synchronize"]
    for g in got:
        assert_genuine(sb, g)
    assert (got[1].payload["before"], got[1].payload["after"]) == (first, second)
    assert sb.github().get_repo("octo/shelf").get_pull(pr.number).head.sha == second


def test_only_its_owner_pushes_to_a_fork(forked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, _ = forked
    work = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", sb.git_url("ghp_agent", FORK), str(work)], check=True, capture_output=True)
    git("config", "user.name", "Agent", cwd=work)
    git("config", "user.email", "agent@example.com", cwd=work)
    commit(work, "docs/x.md", "x\n")
    refused = subprocess.run(["git", "push", "-q", "origin", "HEAD:refs/heads/sneaky"], cwd=work,
                             capture_output=True, text=True, check=False)
    assert refused.returncode != 0 and "403" in refused.stderr


def test_a_fork_branch_that_does_not_exist_opens_nothing(forked: tuple[Sandbox, Receiver]) -> None:
    sb, _ = forked
    repo = sb.github("ghp_outsider").get_repo("octo/shelf")
    with pytest.raises(GithubException) as refused:
        repo.create_pull(title="x", body="", head="outsider:nothing", base="main")
    assert refused.value.status == 422
    with pytest.raises(GithubException) as refused:
        repo.create_pull(title="x", body="", head="stranger:patch-1", base="main")  # no such fork
    assert refused.value.status == 422
