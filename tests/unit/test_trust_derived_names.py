"""Issue 24, item 5: no secret in any derived file, whatever it came through. Not only an
episode's values: its file name (and so its id), a chapter's file name, and the renderer config
(`.docshelf.json` name, preamble, remote, branch) reach INDEX.md, the ledger and `.meta.json`.
A secret there is masked with the shelf's redaction (the built-in shapes and POLICY.patterns)
before anything humanizes, title-cases or percent-encodes it, so neither its bytes nor its
pieces are published, and `«redacted:<kind>»` stands where it was.

Each leak class is checked through the three doors that render: the `render` command, `resolve`
inside a real git merge, and the Action's render on main (in-process, against the fake port).
The commands run in this process (`run_cli_in_process`), each one also once as the real
`memshelf-bot` process (the first leak class), so the process boundary is crossed per door.
"""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bot.flows import render_main
from memshelf_render.derived import derived_paths
from memshelf_render.shelf import load_shelf
from tests.fakegh import World, ran
from tests.shelfkit import (
    RESEARCH,
    RESEARCH_PATH,
    SESSION,
    SESSION_PATH,
    TOPIC,
    TOPIC_PATH,
    make_shelf,
    run_cli,
    run_cli_in_process,
)

GHP = "ghp_" + "R8kQ2vXw" * 4 + "Zt7p"
PAT = "github_pat_11AQZ3KXY0_Lm4Np7Qr2St5Uv8Wx1Yz"
SLACK = "xoxb-4815162342-2718281828-Hf9Gk2Jm5Np8"
AKIA = "AKIAJ7QX2LM4RT9WZ5KV"
CODENAME = "PROJ-4242-NIGHTINGALE"
CODENAME_RULE = "codename PROJ-[0-9]{4}-[A-Z]+"
REMOTE = "https://github.com/octo/shelf"


@dataclass(frozen=True)
class Leak:
    """A secret placed where a derived file takes a name or a config value."""

    secret: str
    kind: str
    pieces: tuple[str, ...]  # its distinctive parts: none may survive, in any letter case
    files: dict[str, str] = field(default_factory=dict)  # shelf-relative path -> text (episodes, chapters)
    docshelf: dict[str, str] = field(default_factory=dict)  # `.docshelf.json` keys laid over the shelf's
    patterns: str = ""  # POLICY.patterns lines added
    shown: tuple[tuple[str, str], ...] = ()  # (derived file, text holding the mask that must be in it)


def untitled(stem: str) -> str:
    """A valid topic whose id is `stem`, with no display_title or description: INDEX then shows
    its humanized file name, the route a secret in the name takes."""
    text = TOPIC.replace("2026-01-05-cache-policy", stem)
    return text.replace('display_title: "Cache policy"\n', "").replace(
        'description: "Edge cache eviction settled on TTL"\n', "")


def titled(stem: str) -> str:
    """A valid topic whose id is `stem`, with a title: `.meta.json` keys it by its file name."""
    return TOPIC.replace("2026-01-05-cache-policy", stem)


def masked(kind: str) -> str:
    return f"«redacted:{kind}»"


LEAKS = {
    "github token as a file name": Leak(
        GHP, "github-token", (GHP[4:],), {f"docs/topics/{GHP}.md": untitled(GHP)},
        shown=(("INDEX.md", f"- [**{masked('github-token')}**]("),
               ("ledger.tsv", f"\t{masked('github-token')}\tlive\t"))),
    "fine-grained github token as a file name": Leak(
        PAT, "github-token", ("11AQZ3KXY0", "Lm4Np7Qr2St5Uv8Wx1Yz"),
        {f"docs/topics/2026-01-05-{PAT}.md": titled(f"2026-01-05-{PAT}")},
        shown=(("docs/topics/.meta.json", f'"2026-01-05-{masked("github-token")}.md": {{'),
               ("ledger.tsv", f"\t2026-01-05-{masked('github-token')}\tlive\t"))),
    "slack token as a file name": Leak(
        SLACK, "slack-token", ("4815162342", "2718281828", "Hf9Gk2Jm5Np8"),
        {f"docs/topics/2026-01-05-{SLACK}.md": untitled(f"2026-01-05-{SLACK}")},
        shown=(("INDEX.md", f"- [**2026 01 05 {masked('slack-token')}**]("),
               ("ledger.tsv", f"\t2026-01-05-{masked('slack-token')}\tlive\t"))),
    "aws key as the shelf's name": Leak(
        AKIA, "aws-access-key", (AKIA[4:],), docshelf={"name": AKIA},
        shown=(("INDEX.md", f"# {masked('aws-access-key')}\n"),)),
    "aws key in the preamble": Leak(
        AKIA, "aws-access-key", (AKIA[4:],), docshelf={"preamble": f"Deploy key {AKIA}, rotate yearly."},
        shown=(("INDEX.md", f"Deploy key {masked('aws-access-key')}, rotate yearly."),)),
    "aws key in the remote": Leak(
        AKIA, "aws-access-key", (AKIA[4:],), docshelf={"remote": f"https://github.com/octo/{AKIA}"},
        shown=(("INDEX.md", f"Repo: <https://github.com/octo/{masked('aws-access-key')}>"),)),
    "aws key as the branch": Leak(
        AKIA, "aws-access-key", (AKIA[4:],), docshelf={"branch": AKIA},
        shown=(("INDEX.md", f"/octo/shelf/{masked('aws-access-key')}/docs/topics/"),)),
    "policy kind in a file name": Leak(
        CODENAME, "codename", ("NIGHTINGALE",),
        {f"docs/topics/2026-01-05-{CODENAME}.md": untitled(f"2026-01-05-{CODENAME}")},
        patterns=CODENAME_RULE + "\n",
        shown=(("INDEX.md", f"- [**2026 01 05 {masked('codename')}**]("),
               ("ledger.tsv", f"\t2026-01-05-{masked('codename')}\tlive\t"))),
    "github token as an archived file name, aws key as the archive's name": Leak(
        GHP, "github-token", (GHP[4:], AKIA[4:]),
        {f"archive/docs/topics/{GHP}.md": untitled(GHP), "archive/.docshelf.json": json.dumps({"name": AKIA})},
        shown=(("archive/INDEX.md", f"# {masked('aws-access-key')}\n"),
               ("archive/INDEX.md", f"- **{masked('github-token')}** — `{masked('github-token')}.md`"),
               ("ledger.tsv", f"\t{masked('github-token')}\tlive\t"))),
    "github token as a chapter's file name": Leak(
        GHP, "github-token", (GHP[4:],),
        {"docs/topics/2026-01-05-cache-policy.md": titled("2026-01-05-cache-policy"),
         f"docs/topics/2026-01-05-cache-policy/001-{GHP}.md": "# Chapter\n\nText.\n",
         "docs/topics/2026-01-05-cache-policy/002-eviction.md": "# Chapter\n\nText.\n"},
        shown=(("INDEX.md", f"- [{masked('github-token')}]("),)),
}


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def written(before: dict[str, bytes], after: dict[str, bytes]) -> dict[str, bytes]:
    """The files a run created or changed."""
    return {path: data for path, data in after.items() if before.get(path) != data}


def assert_not_published(leak: Leak, files: dict[str, bytes]) -> None:
    """No file holds the secret or a piece of it (in any case); each mask stands where it was."""
    assert files
    for path, data in files.items():
        text = data.decode("utf-8", errors="replace")
        assert leak.secret not in text, path
        for piece in leak.pieces:
            assert piece.lower() not in text.lower(), (path, piece)
    for path, expected in leak.shown:
        assert expected in files[path].decode("utf-8"), (path, files[path].decode("utf-8"))


def _docshelf(leak: Leak, base: dict | None = None) -> str:
    return json.dumps({**(base or {"name": "Test shelf"}), "remote": REMOTE, **leak.docshelf}, indent=2)


def leaky_shelf(root: Path, leak: Leak) -> Path:
    """The three-episode test shelf with the leak's files, config and policy."""
    episodes = {SESSION_PATH: SESSION, RESEARCH_PATH: RESEARCH}
    if not any(path.startswith("docs/topics/2026-01-05-cache-policy") for path in leak.files):
        episodes[TOPIC_PATH] = TOPIC
    make_shelf(root, {**episodes, **leak.files}, patterns=leak.patterns)
    (root / ".docshelf.json").write_text(_docshelf(leak), encoding="utf-8")
    return root


CASES = list(LEAKS)


def cli(case: str) -> Callable[..., subprocess.CompletedProcess]:
    """The commands for a leak class: the real process for the first one, in-process for the rest."""
    return run_cli if case == CASES[0] else run_cli_in_process


# --- the `render` command -----------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_render_publishes_no_secret_from_a_name_or_the_config(tmp_path: Path, case: str) -> None:
    leak, run = LEAKS[case], cli(case)
    root = leaky_shelf(tmp_path / "shelf", leak)
    before = _files(root)
    proc = run("render", str(root))
    assert proc.returncode == 0, proc.stderr
    assert_not_published(leak, written(before, _files(root)))
    assert "neutralised" in proc.stdout
    for piece in leak.pieces:  # what the command prints is masked with the shelf's policy too
        assert piece.lower() not in (proc.stdout + proc.stderr).lower()
    again = run("render", str(root), "--check")
    assert again.returncode == 0, again.stdout  # the masked files are the render's fixed point


def test_the_config_and_the_names_it_masked_are_named(tmp_path: Path) -> None:
    leak = Leak(AKIA, "aws-access-key", (AKIA[4:],), {f"docs/topics/{GHP}.md": untitled(GHP)},
                docshelf={"name": AKIA, "branch": AKIA})
    root = leaky_shelf(tmp_path / "shelf", leak)
    proc = run_cli_in_process("render", str(root), "--format", "json")
    neutralised = {item["path"]: item["reason"] for item in json.loads(proc.stdout)["neutralised"]}
    assert neutralised[".docshelf.json"] == "a secret in name was masked; a secret in branch was masked"
    [(path, reason)] = [(p, r) for p, r in neutralised.items() if p.startswith("docs/topics/")]
    assert path == f"docs/topics/{masked('github-token')}.md"
    assert "a secret in its file name was masked" in reason and "a secret in id was masked" in reason


@pytest.mark.parametrize("case", CASES)
def test_validate_after_render_names_the_secret_not_the_masked_derived_files(tmp_path: Path, case: str) -> None:
    """Render masks a secret in an id or a name; validate then judges the derived files against the
    names as render writes them, so the shelf's one problem is the secret, not a ledger row, a
    .meta.json key or an INDEX entry that seems missing or stale."""
    leak, run = LEAKS[case], cli(case)
    root = leaky_shelf(tmp_path / "shelf", leak)
    assert run("render", str(root)).returncode == 0
    proc = run("validate", str(root), "--format", "json")
    codes = {f["code"] for f in json.loads(proc.stdout)["findings"]}
    assert not codes & {"ledger-row-missing", "ledger-row-orphan", "meta-entry-stale", "index-entry-missing",
                        "index-link-broken"}, codes


# --- `resolve` inside a real git merge ------------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    return proc.stdout


def _commit(root: Path, message: str) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", message)


@pytest.mark.parametrize("case", CASES)
def test_resolve_in_a_merge_publishes_no_secret(tmp_path: Path, case: str) -> None:
    """main holds the rendered shelf and the leak's config; one branch adds the leaky episodes
    (or another one), the other a third, each renders; the merge conflicts in derived files, and
    `resolve --commit` regenerates the derived files and commits the merge."""
    leak, run = LEAKS[case], cli(case)
    root = make_shelf(tmp_path / "shelf", patterns=leak.patterns)
    (root / ".docshelf.json").write_text(_docshelf(leak), encoding="utf-8")
    for args in (("init", "-q", "-b", "main"), ("config", "user.name", "t"), ("config", "user.email", "t@example.com")):
        git(root, *args)
    assert run("render", str(root)).returncode == 0
    _commit(root, "base")
    leaky = leak.files or {"docs/topics/2026-01-08-extra.md": titled("2026-01-08-extra")}
    for name, files in (("leaky", leaky), ("other", {"docs/topics/2026-01-09-other.md": titled("2026-01-09-other")})):
        git(root, "checkout", "-q", "-b", name, "main")
        for rel, text in files.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        assert run("render", str(root)).returncode == 0
        _commit(root, name)
    git(root, "checkout", "-q", "leaky")
    git(root, "merge", "-q", "--no-edit", "other")
    assert git(root, "diff", "--name-only", "--diff-filter=U").split()  # in a merge, with conflicts
    before = _files(root)
    proc = run("resolve", str(root), "--commit")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = _files(root)
    assert "resolve: resolved" in proc.stdout and git(root, "status", "--porcelain") == ""
    shelf, _ = load_shelf(root)
    assert shelf is not None
    derived = {p: after[p] for p in derived_paths(shelf) if p in after}
    assert_not_published(leak, {**written(before, after), **derived})
    assert derived == {p: git(root, "show", f"HEAD:{p}").encode() for p in derived}  # as committed
    for piece in leak.pieces:
        assert piece.lower() not in (proc.stdout + proc.stderr).lower()


# --- the Action's render on main ------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES)
def test_the_actions_render_on_main_commits_no_secret(tmp_path: Path, case: str) -> None:
    leak = LEAKS[case]
    world = World.make(tmp_path)
    example = json.loads((world.repo / ".docshelf.json").read_text(encoding="utf-8"))
    patterns = (world.repo / "POLICY.patterns").read_text(encoding="utf-8") + leak.patterns
    world.commit("main", {**leak.files, ".docshelf.json": _docshelf(leak, example), "POLICY.patterns": patterns})
    job = world.job(world.push_event("main", "", world.gh.branch_sha("main")))
    code = ran(render_main.run, job, sleep=lambda s: None, rng=random.Random(1))
    assert code in (0, 1), world.out.getvalue()  # 1: the shelf's own errors (a secret in an id) are reported
    [(_, (_, _, paths))] = world.gh.ops("create_commit")
    assert f"render on main: committed {world.gh.branch_sha('main')}" in world.out.getvalue()
    head = world.gh.branch_sha("main")
    committed = {p: subprocess.run(["git", "show", f"{head}:{p}"], cwd=world.repo, capture_output=True,
                                   check=True).stdout for p in paths}
    assert_not_published(leak, committed)
    told = world.out.getvalue() + job.reporter.summary_text()
    for piece in leak.pieces:
        assert piece.lower() not in told.lower()
