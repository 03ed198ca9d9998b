"""The sandbox's git smart HTTP takes filters as GitHub's does: a blobless partial clone, then the
blobs a promisor remote asks for by id; each answer's size is counted."""

from __future__ import annotations

from pathlib import Path

from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.e2e.test_sandbox_git import git

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox
EPISODE = "docs/topics/2026-01-05-first.md"


def served(sb: Sandbox) -> int:
    return sum(c.sent or 0 for c in sb.calls if "/git-upload-pack" in c.path or "/info/refs" in c.path)


def test_filter_is_advertised_in_v2_and_v0(sandbox: Sandbox, tmp_path: Path) -> None:
    v2 = git("-c", "protocol.version=2", "ls-remote", sandbox.git_url("ghs_agent"), cwd=tmp_path)
    assert v2.returncode == 0
    for version in ("2", "0"):
        trace = git("-c", f"protocol.version={version}", "clone", "--quiet", "--bare", "--filter=blob:none",
                    sandbox.git_url("ghs_agent"), str(tmp_path / f"v{version}.git"), cwd=tmp_path)
        assert "filtering not recognized" not in trace.stderr
        objects = git("rev-list", "--objects", "--missing=print", "HEAD", cwd=tmp_path / f"v{version}.git").stdout
        assert any(line.startswith("?") for line in objects.splitlines()), f"v{version} sent the blobs"


def test_a_blobless_clone_fetches_blobs_lazily_and_the_bytes_are_counted(sandbox: Sandbox, tmp_path: Path) -> None:
    full = tmp_path / "full"
    git("clone", "--quiet", "--no-checkout", "--depth=1", sandbox.git_url("ghs_agent"), str(full), cwd=tmp_path)
    full_bytes = served(sandbox)
    assert full_bytes > 0

    before = served(sandbox)
    part = tmp_path / "part"
    git("clone", "--quiet", "--no-checkout", "--depth=1", "--filter=blob:none", sandbox.git_url("ghs_agent"),
        str(part), cwd=tmp_path)
    blobless = served(sandbox) - before
    missing = git("rev-list", "--objects", "--missing=print", "HEAD", cwd=part).stdout
    assert any(line.startswith("?") for line in missing.splitlines()), "no blob was left out"
    assert blobless < full_bytes

    before = served(sandbox)
    text = git("show", f"HEAD:{EPISODE}", cwd=part).stdout  # a lazy fetch of one blob by its id
    assert text == git("show", f"HEAD:{EPISODE}", cwd=full).stdout
    assert "# First episode" in text
    assert served(sandbox) > before
    assert all(c.status == 200 for c in sandbox.calls if "/git-upload-pack" in c.path)


def test_the_log_line_carries_the_bytes_served(bare_repo: Path, tmp_path: Path) -> None:
    import json

    log = tmp_path / "calls.jsonl"
    with Sandbox.start(bare_repo, "octo/shelf", log=log) as sb:
        git("clone", "--quiet", "--filter=blob:none", sb.git_url("ghs_agent"), str(tmp_path / "c"), cwd=tmp_path)
        counted = served(sb)
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    git_lines = [line for line in lines if "/git-upload-pack" in line["path"] or "/info/refs" in line["path"]]
    assert git_lines and all(isinstance(line["bytes"], int) for line in git_lines)
    assert sum(line["bytes"] for line in git_lines) == counted
    assert all("bytes" not in line for line in lines if line not in git_lines)
