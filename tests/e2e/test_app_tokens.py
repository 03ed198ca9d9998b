"""Installation tokens against the sandbox playing GitHub: the App's JWT (PyGithub AppAuth) buys a
token for ONE repository with only the flow's permissions, cached; the App's slug from GET /app."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from github import Auth, Github, GithubException

from bot.app.auth import InstallationTokens
from bot.app.config import load_config
from bot.app.jobs import bot_login
from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests.app_helpers import rsa_pem
from tests.sandbox_fixtures import seed_tree

APP_ID = 4343


@pytest.fixture(scope="module")
def pem() -> str:
    return rsa_pem()


@pytest.fixture
def sandbox(tmp_path: Path, pem: str) -> Iterator[Sandbox]:
    bare, other = tmp_path / "shelf.git", tmp_path / "other.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    seed_bare_repo(seed_tree(tmp_path / "seed2"), other)
    app = App.from_private_key(APP_ID, pem.encode(), slug="shelf-app")
    with Sandbox.start(bare, "octo/shelf", app=app, more=[(other, "octo/other")]) as sb:
        yield sb
        assert sb.validation_errors == []


def test_a_token_for_one_repository_and_the_flows_permissions(sandbox: Sandbox, pem: str) -> None:
    config = load_config({"MEMSHELF_BOT_APP_ID": str(APP_ID), "MEMSHELF_BOT_PRIVATE_KEY": pem,
                          "MEMSHELF_BOT_WEBHOOK_SECRET": "s"}, sandbox.api_url)
    tokens = InstallationTokens(config)
    assert bot_login(tokens.app_slug()) == "shelf-app[bot]"
    installation = tokens.integration.get_repo_installation("octo", "shelf").id
    reader = tokens.token(installation, "octo/shelf", {"contents": "read", "checks": "write"})
    assert tokens.token(installation, "octo/shelf", {"checks": "write", "contents": "read"}) is reader
    gh = Github(auth=Auth.Token(reader.token), base_url=sandbox.api_url, retry=None)
    repo = gh.get_repo("octo/shelf")
    main = repo.get_branch("main").commit.sha
    assert repo.create_check_run("memshelf-bot", main, status="in_progress").app.slug == "shelf-app"
    with pytest.raises(GithubException) as refused:  # contents: read only
        repo.create_git_ref("refs/heads/shelve/nope", main)
    assert refused.value.status == 403
    with pytest.raises(GithubException) as elsewhere:  # another repository of the installation
        gh.get_repo("octo/other").get_branch("main")
    assert elsewhere.value.status == 404
    writer = tokens.token(installation, "octo/shelf", {"contents": "write"})
    assert writer.token != reader.token
    writable = Github(auth=Auth.Token(writer.token), base_url=sandbox.api_url, retry=None).get_repo("octo/shelf")
    assert writable.create_git_ref("refs/heads/shelve/yes", main).ref == "refs/heads/shelve/yes"
    assert tokens.calls == 3  # GET /app and two tokens (the cached one asked nothing)
