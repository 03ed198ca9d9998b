"""A seeded generator of hostile shelves for the core commands (issue 8's adversarial corpus).

`hostile_shelf(root, seed)` writes a small memory shelf (a git repository: a clean base commit,
then a hostile head commit) whose file names, directory names, ids, titles, notes and YAML values
carry what an attacker would put in a pull request: forged workflow commands
(`::warning title=x::y`, a line break then `::stop-commands::`), ESC / CSI / OSC sequences, CR,
bidi overrides, undecodable (non-UTF-8) name bytes, and credentials in names and values. With
some seeds it also adds a symlinked docs or archive directory pointing outside the shelf, a FIFO
named like a config file or an episode, a config nested 100k deep, or an index/ledger path aimed
at a file render must never write. The same seed gives the same shelf.

`Hostile` tells the test what to hold the commands to: the secrets that must never be printed or
written, the outside directory that must stay untouched, the files that are not derived.
"""

from __future__ import annotations

import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.shelfkit import MANIFEST, TOPIC, make_shelf

# Credential shapes every built-in masker knows (assembled, so this file holds none verbatim).
AWS_KEY = "AKIA" + "Q7XW3ZP2MRT5LK9B"
GH_TOKEN = "ghp_" + "R4nd0mT0k3nW1thThirtySixCharsXy12abc"
SECRETS = (AWS_KEY, GH_TOKEN)

# Texts that would do something if printed raw on a log line or a terminal.
ATTACKS = (
    "::warning title=pwned::x",
    "x\n::stop-commands::tok",
    "::error file=a,line=1::forged",
    "\x1b]0;owned\x07\x1b[2J",
    "\x1b[31mred\x1b[0m",
    "cr\r::notice::hidden",
    "\u202eevil\u202c",
    "\u2066iso\u2069",
    "%0A::error::encoded",
    "a,b:c%",
    "\x9b2J",
    "tab\tand\x7fdel",
    AWS_KEY,
    f"key {GH_TOKEN} end",
)

# Non-UTF-8 file-name bytes (NUL-free): they arrive as surrogateescape.
RAW_NAMES = (b"\xff\xfe-bytes", b"latin1-\xe9t\xe9", b"\x80\x81lead")

# One filesystem or config attack per shelf, in turn by seed.
FEATURES = ("docs-link", "archive-link", "fifo-episode", "deep-docshelf", "derived-at-config", "category-link",
            "gitmodules", "plain", "fifo-settings", "deep-manifest", "secret-in-manifest", "secret-in-settings",
            "hostile-docs-root", "config-dir-link")

EPISODE = """\
# {id}

---
id: {id_yaml}
kind: topic
span: 2026-01-05
date: 2026-01-05
display_title: {title}
description: {description}
tags: [cache]
approx_tokens: 120
approx_tokens_source: estimate
mode: live
notes: {notes}
---

## Digest
The cache moved to TTL eviction. Decided: a TTL of 300 seconds. Open: overrides.

## Decisions
TTL 300 s.
"""


@dataclass
class Hostile:
    """A generated shelf and what must hold for it."""

    root: Path
    outside: Path
    seed: int
    secrets: tuple[str, ...] = SECRETS
    features: list[str] = field(default_factory=list)
    protected: list[str] = field(default_factory=list)  # shelf files no command may change
    config_error: bool = False  # shelf.yml / settings made invalid on purpose
    episodes: list[str] = field(default_factory=list)  # shelf-relative episode paths (str)


def yaml_quoted(text: str) -> str:
    """A YAML double-quoted scalar for any text (JSON escapes, which YAML reads the same)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif code < 0x20 or 0x7F <= code <= 0x9F or 0x2028 <= code <= 0x2029 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def name_safe(text: str) -> str:
    """`text` usable as one file-name component (no '/', no NUL, not empty)."""
    return text.replace("/", "_").replace("\0", "_") or "_"


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", "-c", "commit.gpgsign=false",
                    *args], cwd=root, check=True, capture_output=True)


def _episode(stem: str, rng: random.Random) -> str:
    pick = rng.choice
    return EPISODE.format(id=stem.replace("\n", " "), id_yaml=yaml_quoted(stem), title=yaml_quoted(pick(ATTACKS)),
                          description=yaml_quoted(pick(ATTACKS)), notes=yaml_quoted(pick(ATTACKS)))


def _write_bytes_name(directory: Path, name: bytes, content: str) -> None:
    path = os.path.join(os.fsencode(directory), name + b".md")
    with open(path, "wb") as fh:
        fh.write(content.encode("utf-8", "surrogateescape"))


def hostile_shelf(root: Path, seed: int) -> Hostile:
    """Write hostile shelf number `seed` at `root` (with an `outside` sibling it must never touch)."""
    rng = random.Random(seed)
    outside = root.parent / f"{root.name}-outside"
    outside.mkdir(parents=True)
    (outside / "secret.md").write_text(f"# outside\n\nnot the shelf's: {AWS_KEY}\n", encoding="utf-8")
    (outside / "topics").mkdir()
    (outside / "topics" / "2026-01-01-outside.md").write_text(_episode("2026-01-01-outside", rng), encoding="utf-8")
    make_shelf(root, {"docs/topics/2026-01-05-cache-policy.md": TOPIC})
    h = Hostile(root, outside, seed)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")

    for text in rng.sample(ATTACKS, 4):
        stem = f"2026-01-{rng.randint(10, 28):02d}-{name_safe(text)}"
        rel = f"docs/topics/{stem}.md"
        (root / rel).write_text(_episode(stem, rng), encoding="utf-8")
        h.episodes.append(rel)
    for raw in rng.sample(RAW_NAMES, 1):
        # the file name is undecodable; the id inside is its readable form (a lone surrogate in a
        # YAML value is the parser's concern, not this corpus')
        _write_bytes_name(root / "docs" / "sessions", raw, _episode(raw.decode("utf-8", "replace"), rng))
    hostile_dir = root / "docs" / "topics" / name_safe(rng.choice(ATTACKS))
    hostile_dir.mkdir(exist_ok=True)
    (hostile_dir / f"{name_safe(rng.choice(ATTACKS))}.md").write_text("chapter\n", encoding="utf-8")
    (root / "docs" / name_safe(rng.choice(ATTACKS))).mkdir(exist_ok=True)  # an undeclared category
    (root / f"{name_safe(rng.choice(ATTACKS))}.txt").write_text("stray\n", encoding="utf-8")
    (root / "recall-log.tsv").write_text(f"episode_id\tsection\tfetched_tokens\n{rng.choice(ATTACKS)}\tDigest\t10\n",
                                         encoding="utf-8")

    feature = FEATURES[seed % len(FEATURES)]
    h.features.append(feature)
    _apply(h, feature, rng)
    h.protected += ["shelf.yml", "POLICY.md", "recall-log.tsv", ".git/config", ".git/HEAD"]
    h.protected += h.episodes
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "hostile head")
    return h


def _apply(h: Hostile, feature: str, rng: random.Random) -> None:
    root = h.root
    if feature == "docs-link":  # the docs root itself points outside
        os.rename(root / "docs", root / "docs-real")
        os.symlink(h.outside, root / "docs")
        h.episodes = [p.replace("docs/", "docs-real/", 1) for p in h.episodes]
    elif feature == "archive-link":
        os.symlink(h.outside, root / "archive")
    elif feature == "category-link":
        (root / "docs" / "research").rmdir()
        os.symlink(h.outside / "topics", root / "docs" / "research")
    elif feature == "fifo-episode":
        os.mkfifo(root / "docs" / "topics" / "2026-01-09-fifo.md")
        os.mkfifo(root / ".docshelf.json")
    elif feature == "deep-docshelf":
        (root / ".docshelf.json").write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    elif feature == "derived-at-config":
        target = rng.choice([".git/config", "shelf.yml", "POLICY.patterns", "recall-log.tsv",
                             "docs/topics/2026-01-05-cache-policy.md", "docs/../../outside.tsv", ".github/x.yml"])
        key = rng.choice(["index", "ledger"])
        old = "path: INDEX.md" if key == "index" else "path: ledger.tsv"
        (root / "POLICY.patterns").write_text("internal-host \\bintranet\\.example\\b\n", encoding="utf-8")
        h.protected.append("POLICY.patterns")
        (root / "shelf.yml").write_text(MANIFEST.replace(old, f"path: {target}"), encoding="utf-8")
        h.config_error = True
    elif feature == "fifo-settings":  # opening it would block every command
        os.mkfifo(root / ".memshelf-bot.yml")
        h.config_error = True
    elif feature == "deep-manifest":
        (root / "shelf.yml").write_text(MANIFEST + "extra: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
        h.config_error = True
    elif feature == "secret-in-manifest":
        (root / "shelf.yml").write_text(MANIFEST.replace("profile: memory", f"profile: [{AWS_KEY}]"), encoding="utf-8")
        h.config_error = True
    elif feature == "secret-in-settings":
        (root / ".memshelf-bot.yml").write_text(f"comment: {yaml_quoted(GH_TOKEN)}\nbadge: {AWS_KEY}\n",
                                                encoding="utf-8")
        (root / ".docshelf.json").write_text(f'{{"name": ["{AWS_KEY}"], "provider": "{GH_TOKEN}"}}', encoding="utf-8")
        h.config_error = True
    elif feature == "hostile-docs-root":  # a docs root whose name is an attack: every path starts with it
        name = name_safe(rng.choice(ATTACKS[:4]))
        os.rename(root / "docs", root / name)
        (root / "shelf.yml").write_text(MANIFEST.replace("docs_root: docs", f"docs_root: {yaml_quoted(name)}"),
                                        encoding="utf-8")
        h.episodes = [name + p[len("docs"):] for p in h.episodes]
    elif feature == "config-dir-link":  # config paths read through a linked directory
        os.symlink(h.outside, root / "conf")
        (h.outside / "POLICY.md").write_text(f"outside policy {AWS_KEY}\n", encoding="utf-8")
        (root / "shelf.yml").write_text(MANIFEST.replace("path: POLICY.md", "path: conf/POLICY.md"), encoding="utf-8")
    elif feature == "gitmodules":
        (root / ".gitmodules").write_text(f'[submodule "x"]\n\tpath = docs/topics/{AWS_KEY}\n\turl = ../x\n',
                                          encoding="utf-8")


def snapshot(directory: Path) -> dict[bytes, bytes | str]:
    """Every entry under `directory` (not following links) -> its bytes, or its kind/target."""
    out: dict[bytes, bytes | str] = {}
    base = os.fsencode(directory)
    for top, dirs, files in os.walk(base):
        for name in dirs + files:
            path = os.path.join(top, name)
            rel = os.path.relpath(path, base)
            if os.path.islink(path):
                out[rel] = "link:" + os.fsdecode(os.readlink(path))
            elif os.path.isdir(path):
                out[rel] = "dir"
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    out[rel] = fh.read()
            else:
                out[rel] = "special"
    return out
