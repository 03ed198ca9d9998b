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

Shapes the tuned work of the earlier runs never saw (issue 22, "cold speed on shelves you have
not seen"):

- `mixed-script`: 3-10 KB of prose that switches between Russian and English inside sentences
  and inside words (`Kafka-кластер`, `retry-политика`) in every episode;
- `rollups`: an archive of at least 1,200 episodes (a third of the shelf beyond 3,600), rolled
  up by several roll-up topics as `memshelf rollup` writes them, each listing 400-1,200 ids with
  their titles under `## Archived`;
- `long-digests`: every digest grown to 90-120 words with sentences of its own episode's facts,
  which the body then also holds;
- `many-policy`: eighty POLICY rules (prefixed ids, hosts, case-insensitive code names, accounts,
  literal-free class runs, alternations, mail domains, paths) and, in a third of the episodes,
  2-6 KB of operations notes full of near misses of them (one digit short, another zone).

The same (shape, size, seed) gives the same bytes.
"""

from __future__ import annotations

import json
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


_MIXED_TERMS = ("Kafka-кластер", "retry-политика", "on-call-инженер", "p99-задержка", "canary-выкладка",
                "health-check", "SLO-бюджет", "k8s-нода", "TTL-кэш", "dead-letter-очередь", "CI-раннер",
                "ZFS-пул", "rollback-план", "feature-флаг", "shard-ключ", "rate-limit", "S3-бакет")
_MIXED_GLUE = ("после", "before", "и", "and", "но", "but", "потому что", "because", "—", "; затем", "; then")


def _mixed(rng: random.Random, chars: int) -> str:
    en = [p for d in DOMAINS for p in (*d.why_en, *d.open_en, d.en, *d.options)]
    ru = [p for d in DOMAINS for p in (*d.why_ru, *d.open_ru, d.ru)] + list(RU_EVENTS)
    out: list[str] = []
    size = 0
    while size < chars:
        parts = []
        for _ in range(rng.randint(3, 6)):
            pool = rng.choice((en, ru, _MIXED_TERMS))
            parts.append(rng.choice(pool).format(choice="Kafka", alt="RabbitMQ", open="ротация ключей"))
            parts.append(rng.choice(_MIXED_GLUE))
        sentence = " ".join(parts[:-1]).capitalize() + "."
        out.append(sentence)
        size += len(sentence) + 1
        if rng.random() < 0.2:
            out.append("\n\n")
    return " ".join(out).replace(" \n\n ", "\n\n")


def _mixed_script(text: str, rng: random.Random) -> str:
    return _after_digest(text, _mixed(rng, rng.randint(3_000, 10_000)))


# Whole words the digest contract forbids (first-person plural, en/ru): a grown digest takes no
# sentence holding one.
_WE = re.compile(r"(?i)\b(?:we|we're|we've|we'd|our|ours|us|мы|нам|нас|наш\w*)\b")
_EN_GROW = ("Context: {why}.", "Also noted: {open}.", "Evidence: {why} on the staging host.",
            "Risk: {open} stays unowned until the next review.", "Measured: {choice} against {alt}, {why}.",
            "Follow-up: {open} with the on-call engineer.", "Trade-off: {alt} is simpler, yet {why}.")
_RU_GROW = ("Контекст: {why}.", "Отмечено: {open}.", "Доводы: {why} на стенде.",
            "Риск: {open} остаётся без владельца до следующего обзора.", "Замер: {choice} против {alt}, {why}.",
            "Дальше: {open} вместе с дежурным инженером.", "Компромисс: {alt} проще, однако {why}.")


def _long_digest(text: str, rng: random.Random) -> str:
    found = _DIGEST_HEADING.search(text)
    if found is None:
        return text
    nxt = _HEADING.search(text, found.end())
    digest = text[found.end() : nxt.start() if nxt else len(text)].strip()
    ru = re.search("[а-яё]", digest, re.IGNORECASE) is not None
    d = rng.choice(DOMAINS)
    choice, alt = rng.sample(d.options, 2)
    whys, opens = (d.why_ru, d.open_ru) if ru else (d.why_en, d.open_en)
    target = rng.randint(90, 120)
    words = len(digest.split())
    grown: list[str] = []
    for _ in range(60):
        sentence = rng.choice(_RU_GROW if ru else _EN_GROW).format(
            why=rng.choice(whys), open=rng.choice(opens), choice=choice, alt=alt)
        n = len(sentence.split())
        if words + n > target or _WE.search(sentence):
            continue
        grown.append(sentence)
        words += n
    if not grown:
        return text
    text = _replace_digest(text, digest + " " + " ".join(grown))
    return _after_digest(text, " ".join(grown))


_PREFIXES = ("TKT", "OPS", "SEC", "FIN", "LEG", "PAY", "DOC", "REQ", "CHG", "PRB", "VND", "AUD")
_ZONES = ("stage", "prod", "lab", "dmz", "backoffice", "vault", "mgmt", "edge")
_CODENAMES = ("bluebird", "nightjar", "kestrel", "osprey", "starling", "wagtail", "goldcrest", "merlin")
_ACCOUNTS = ("org", "usr", "prj", "sub", "tnt", "bkt")
_MAIL = ("people", "payroll", "legal", "board")


def many_policy_patterns() -> str:
    """Eighty POLICY rules of the kinds real packs hold, each in a few spellings (seeded by
    nothing: the same pack for every seed)."""
    rules = [line for line in POLICY_PATTERNS.splitlines() if line and not line.startswith("#")]
    rules += [rf"ticket-{p.lower()} \b{p}-[0-9]{{6}}\b" for p in _PREFIXES]
    rules += [rf"host-{z} \b[a-z0-9-]+\.{z}\.internal\b" for z in _ZONES]
    rules += [rf"codename-{c} (?i:operation[ \t]+{c})" for c in _CODENAMES]
    rules += [rf"account-{a} \b{a}_[0-9a-f]{{16}}\b" for a in _ACCOUNTS]
    rules += [rf"badge-{n} \b[A-Z]{{{a}}}[0-9]{{{b}}}[A-Z]\b"
              for n, (a, b) in enumerate(((3, 6), (3, 7), (4, 6), (4, 8), (5, 6), (3, 9)))]
    rules += [rf"key-{n} \b(?:{w}|{v})-key-[0-9a-f]{{24}}\b"
              for n, (w, v) in enumerate(zip(_CODENAMES, _CODENAMES[::-1], strict=True))]
    rules += [rf"mail-{m} [A-Za-z0-9._%+-]+@{m}\.corp\.example\.com\b" for m in _MAIL]
    rules += [rf"path-{z} /srv/{z}/secrets/[a-z0-9_./-]+" for z in _ZONES]
    rules += [rf"phone-{n} \+{cc}[ -]?[0-9]{{3}}[ -]?[0-9]{{3}}[ -]?[0-9]{{4}}\b"
              for n, cc in enumerate(("1", "44", "49", "7"))]
    rules += [rf"card-{n} \b{b}[0-9]{{3}}[ -][0-9]{{4}}[ -][0-9]{{4}}[ -][0-9]{{4}}\b"
              for n, b in enumerate(("4", "51", "52", "37"))]
    rules += [rf"vm-{z} \bvm-{z}-[0-9]{{4}}\b" for z in _ZONES]
    rules += [rf"token-{p.lower()} (?i:{p}_tok_[a-z0-9]{{20}})" for p in _PREFIXES[:6]]
    return "# eighty rules: ids, hosts, code names, accounts, badges, keys, mail, paths\n" + "\n".join(rules) + "\n"


def _near_misses(rng: random.Random, chars: int) -> str:
    """Operations notes that look like every rule of `many_policy_patterns` and match none."""
    lines: list[str] = []
    size = 0
    while size < chars:
        z, p, c, a = rng.choice(_ZONES), rng.choice(_PREFIXES), rng.choice(_CODENAMES), rng.choice(_ACCOUNTS)
        line = rng.choice((
            f"- {p}-{rng.randrange(10**5):05d} closed after the {z} review",
            f"- db-{rng.randint(1, 40)}.{z}-internal answered within {rng.randint(2, 90)} ms",
            f"- operation_{c} stays on hold; {c} ownership moves to the {z} team",
            f"- {a}_{rng.randrange(16**15):015x} rotated by the vault job",
            f"- badge {p}{rng.randrange(10**5):05d} scanned at the {z} door",
            f"- {c}-key rotation scheduled for {rng.randint(1, 28)} May",
            f"- mail to {c}@{rng.choice(_MAIL)}.corp.example.org bounced",
            f"- /srv/{z}/public/{c}/readme.txt refreshed",
            f"- call +{rng.randint(2, 6)}{rng.randint(0, 9)} {rng.randrange(1000):03d} {rng.randrange(1000):03d} "
            f"recorded",
            f"- vm-{z}-{rng.randrange(1000):03d} drained before the upgrade",
            f"- {p.lower()}_tok rotation tracked in {p}-{rng.randrange(10**4):04d}",
        ))
        lines.append(line)
        size += len(line) + 1
    return "Operations notes:\n\n" + "\n".join(lines)


def _many_policy(text: str, rng: random.Random) -> str:
    if rng.random() >= 1 / 3:
        return text
    return _after_digest(text, _near_misses(rng, rng.randint(2_000, 6_000)))


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
    "mixed-script": _mixed_script,
    "rollups": None,
    "long-digests": _long_digest,
    "many-policy": _many_policy,
}
SHAPES = tuple(_RESHAPE)


def rollups_archive(episodes: int) -> int:
    """The `rollups` shape's archive: 1,200 from a 1,000-episode shelf on (a third of the shelf
    beyond 3,600), six in five below (a test's small shelf)."""
    return max(episodes // 3, min(1_200, episodes * 6 // 5))


_FIELD = re.compile(r'^(id|date|display_title|tags):[ \t]*(.*)$', re.MULTILINE)


def _split_rollup(root: Path, rollup: str, archived: tuple[str, ...], rng: random.Random) -> None:
    """Replace the generator's one roll-up by several as `memshelf rollup` writes them
    (docs/reference.md §12): each absorbs a run of the archive by date and lists its ids with titles."""
    absorbed = []
    for rel in archived:
        fields = dict(_FIELD.findall((root / rel).read_text(encoding="utf-8")))
        title = fields["display_title"][1:-1] if fields.get("display_title", "").startswith('"') else None
        tags = [t.strip() for t in fields.get("tags", "[]").strip("[]").split(",") if t.strip()]
        absorbed.append((fields.get("date", fields["id"][:10]), fields["id"], title, tags))
    absorbed.sort()
    first_id = rollup.rsplit("/", 1)[1][:-3]
    (root / rollup).unlink()
    cap = max(1, (len(absorbed) + 1) // 2)
    start, n = 0, 0
    while start < len(absorbed):
        size = min(rng.randint(400, 1_200), cap)
        run = absorbed[start : start + size]
        start += size
        until = run[-1][0]
        rid = first_id if n == 0 else f"{until}-rollup-{n:02d}"
        n += 1
        (root / "docs" / "topics" / f"{rid}.md").write_text(_rollup_text(rid, until, run), encoding="utf-8")


def _rollup_text(rid: str, until: str, run: list[tuple[str, str, str | None, list[str]]]) -> str:
    counts: dict[str, int] = {}
    for _, _, _, tags in run:
        for tag in tags:
            counts[tag] = counts.get(tag, 0) + 1
    keywords = sorted(counts, key=lambda k: (-counts[k], k))[:8]
    n = len(run)
    description = f"Роллап: {n} эп. Ключевые слова: {', '.join(keywords)}"[:120]
    listing = "\n".join(f"- `{eid}`" + (f" — {title}" if title else "") for _, eid, title, _ in
                        sorted(run, key=lambda r: r[1]))
    return (f"# {rid}\n\n---\nid: {rid}\nkind: topic\nspan: ..{until}\ndate: {until}\n"
            f"display_title: {json.dumps(f'Roll-up up to {until}', ensure_ascii=False)}\n"
            f"description: {json.dumps(description, ensure_ascii=False)}\ntags: [rollup]\n"
            f"keywords: [{', '.join(keywords)}]\napprox_tokens: 0\nmode: live\n"
            f"notes: \"rollup of {n} episodes\"\n---\n\n"
            f"## Digest\nRoll-up of {n} archived episodes up to {until}. Decided: the originals move to the "
            f"archive sub-shelf and recall by id keeps working. Open: review the archived threads next quarter."
            f"\n\nКлючевые слова поглощённого: {', '.join(keywords)}.\n\n"
            f"## Decisions\nСм. дайджест: свод решений свёрнутого периода.\n\n"
            f"## Archived\nСвёрнуто эпизодов: {n}. Полные тексты — в под-полке "
            f"[`archive/INDEX.md`](../../archive/INDEX.md), recall по id работает как обычно.\n\n{listing}\n")


def build_shelf(root: Path, shape: str, episodes: int, *, seed: int, derived: bool = False) -> Path:
    """Write a shelf of `shape` with `episodes` docs episodes into `root` (must not exist)."""
    archive = {"big-archive": episodes // 2, "rollups": rollups_archive(episodes)}.get(shape, episodes // 20)
    generated = generate_shelf(root, seed=seed, episodes=episodes, archive=archive)
    if shape in ("raw-heavy", "big-archive"):
        (root / "POLICY.patterns").write_text(DOZEN_PATTERNS, encoding="utf-8")
    if shape == "many-policy":
        (root / "POLICY.patterns").write_text(many_policy_patterns(), encoding="utf-8")
    if shape == "rollups":
        _split_rollup(root, generated.episodes[-1], generated.archived, random.Random(f"rollups/{seed}/{episodes}"))
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
