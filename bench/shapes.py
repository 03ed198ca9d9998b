"""Seeded shelves of several shapes for the benchmarks, so no single shape flatters us.

Every shape starts from `tests/shelfgen.py` (the same valid episodes the tests use) and then
reshapes the episode files with its own seeded generator:

- `generated`: the generator's own shape (archive of size // 20, two POLICY patterns);
- `late-grounding`: 4-12 KB of unrelated prose right after the Digest, so the digest's words
  occur late in the body; a quarter of the digests are rewritten in words the body never uses;
- `cyrillic`: 3-12 KB of Russian prose in every episode;
- `raw-heavy`: one episode in six grows to 20-60 KB of fenced Raw excerpts (logs, code, JSON),
  and POLICY.patterns holds a dozen patterns;
- `big-archive`: an archive half the size of the shelf, and the dozen patterns.

The same (shape, size, seed) gives the same bytes.
"""

from __future__ import annotations

import random
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.shelfgen import DOMAINS, POLICY_PATTERNS, RU_EVENTS, generate_shelf  # noqa: E402

DOZEN_PATTERNS = POLICY_PATTERNS + "\n".join((
    r"incident-id \bINC[0-9]{7}\b",
    r"employee-id \bEMP-[0-9]{6}\b",
    r"office-net \b10\.20\.[0-9]{1,3}\.[0-9]{1,3}\b",
    r"ssn \b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
    r"codename (?i:project\s+nightingale)",
    r"account-id \bacct_[0-9a-f]{12}\b",
    r"iban \b[A-Z]{2}[0-9]{2}[A-Z0-9]{12,30}\b",
    r"customer-id \bcust-[0-9]{8}\b",
    r"vault-path vault://[a-z0-9/_-]+",
    r"corp-mail [A-Za-z0-9._%+-]+@corp\.example\.net\b",
)) + "\n"
_SYLLABLES = ("ka", "lo", "mi", "re", "tu", "sa", "no", "vi", "de", "ra", "po", "li", "zu", "fe", "go", "xa")
_DIGEST_HEADING = re.compile(r"^## Digest[ \t]*$", re.MULTILINE)
_HEADING = re.compile(r"^## ", re.MULTILINE)


def _nonce_words(rng: random.Random, n: int) -> list[str]:
    """Made-up words of 3-5 syllables: never in any generated digest."""
    return ["".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 5))) for _ in range(n)]


def _prose(rng: random.Random, vocab: list[str], chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        words = rng.choices(vocab, k=rng.randint(8, 18))
        sentence = " ".join(words).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
        if rng.random() < 0.15:
            out.append("\n\n")
    return " ".join(out).replace(" \n\n ", "\n\n")


def _russian(rng: random.Random, chars: int) -> str:
    phrases = [p for d in DOMAINS for p in (*d.why_ru, *d.open_ru, d.ru)] + list(RU_EVENTS)
    out: list[str] = []
    size = 0
    while size < chars:
        parts = [p.format(choice="Kafka", alt="RabbitMQ", open="ротация ключей") for p in rng.sample(phrases, 3)]
        sentence = "; ".join(parts).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
    return " ".join(out)


def _fences(rng: random.Random, chars: int) -> str:
    blocks: list[str] = []
    size = 0
    n = 0
    while size < chars:
        n += 1
        kind = rng.choice(("text", "python", "json"))
        if kind == "text":
            body = "\n".join(f"2025-05-0{rng.randint(1, 9)}T0{rng.randint(0, 9)}:{rng.randint(10, 59)}:00Z WARN "
                             f"worker-{rng.randint(1, 40)} job {rng.randint(1000, 99999)} took "
                             f"{rng.randint(3, 900)} ms queue=billing" for _ in range(rng.randint(10, 30)))
        elif kind == "python":
            body = "\n".join(f"def step_{n}_{i}(rows):\n    return [r for r in rows if r.get('w{i}') > {i}]"
                             for i in range(rng.randint(5, 15)))
        else:
            body = "[\n" + ",\n".join(f'  {{"id": {rng.randint(1, 10**6)}, "ms": {rng.randint(1, 999)}, '
                                      f'"route": "/api/v{rng.randint(1, 3)}/items"}}'
                                      for _ in range(rng.randint(10, 30))) + "\n]"
        block = f"Excerpt {n}:\n\n```{kind}\n{body}\n```\n"
        blocks.append(block)
        size += len(block)
    return "\n".join(blocks)


def _after_digest(text: str, block: str) -> str:
    """`block` as the first paragraph of the section that follows the Digest (or appended)."""
    digest = _DIGEST_HEADING.search(text)
    nxt = _HEADING.search(text, digest.end()) if digest else None
    if nxt is None:
        return text.rstrip("\n") + "\n\n" + block + "\n"
    line_end = text.index("\n", nxt.start()) + 1
    return text[:line_end] + block + "\n\n" + text[line_end:]


def _replace_digest(text: str, digest: str) -> str:
    found = _DIGEST_HEADING.search(text)
    if found is None:
        return text
    nxt = _HEADING.search(text, found.end())
    end = nxt.start() if nxt else len(text)
    return text[: found.end()] + "\n" + digest + "\n\n" + text[end:]


def _late_grounding(text: str, rng: random.Random) -> str:
    vocab = _nonce_words(rng, 400)
    text = _after_digest(text, _prose(rng, vocab, rng.randint(4_000, 12_000)))
    if rng.random() < 0.25:
        words = " ".join(_nonce_words(rng, 14))
        text = _replace_digest(text, f"Decided: {words}. Open: {' '.join(_nonce_words(rng, 6))}.")
    return text


def _cyrillic(text: str, rng: random.Random) -> str:
    return _after_digest(text, _russian(rng, rng.randint(3_000, 12_000)))


def _raw_heavy(text: str, rng: random.Random) -> str:
    if rng.random() >= 1 / 6:
        return text
    return text.rstrip("\n") + "\n\n" + _fences(rng, rng.randint(20_000, 60_000) - len(text)) + "\n"


_RESHAPE: dict[str, Callable[[str, random.Random], str] | None] = {
    "generated": None,
    "late-grounding": _late_grounding,
    "cyrillic": _cyrillic,
    "raw-heavy": _raw_heavy,
    "big-archive": None,
}
SHAPES = tuple(_RESHAPE)


def build_shelf(root: Path, shape: str, episodes: int, *, seed: int, derived: bool = False) -> Path:
    """Write a shelf of `shape` with `episodes` docs episodes into `root` (must not exist)."""
    archive = episodes // 2 if shape == "big-archive" else episodes // 20
    generate_shelf(root, seed=seed, episodes=episodes, archive=archive)
    if shape in ("raw-heavy", "big-archive"):
        (root / "POLICY.patterns").write_text(DOZEN_PATTERNS, encoding="utf-8")
    reshape = _RESHAPE[shape]
    if reshape is not None:
        rng = random.Random(f"{shape}/{seed}/{episodes}")
        for path in sorted((root / "docs").rglob("*.md")):
            raw = path.read_bytes().decode("utf-8")
            crlf = "\r\n" in raw
            text = reshape(raw.replace("\r\n", "\n"), rng)
            path.write_bytes((text.replace("\n", "\r\n") if crlf else text).encode("utf-8"))
    if derived:
        from tests import refs

        refs.render([root])
    return root
