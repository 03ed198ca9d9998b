"""The shelf model: manifest, renderer config, bot settings and where the episodes are.

Loading a shelf never follows a symlink and never reads outside the shelf root: every path the
shelf names is checked component by component (`paths`), and only regular files are opened. A
missing or schema-invalid `shelf.yml` (or `.memshelf-bot.yml`), or an index or ledger path that
would overwrite something not derived, is a config finding and no `Shelf`. Config messages pass
through the masker: a value quoted from a config file never echoes a secret.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from . import paths, yamlload
from .episode import Episode, parse, read_bytes
from .findings import Finding
from .redact import mask
from .schema_subset import conforms

MANIFEST = "shelf.yml"
SETTINGS = ".memshelf-bot.yml"
DOCSHELF = ".docshelf.json"
ARCHIVE_DIR = "archive"
RECALL_LOG = "recall-log.tsv"  # the append-only recall event log: not derived, never rendered
STANDARD_CATEGORIES = ("topics", "research", "sessions")
KIND_OF_CATEGORY = {"topics": "topic", "research": "research", "sessions": "session"}
DEFAULT_BRANCH_PATTERNS = ("shelve/**", "night-shift/**", "shift/**")
DEFAULT_CONTEXT_WINDOW = 200_000
HEAD_BYTES = 4096  # what the renderers read of an episode first: its frontmatter and Digest fit
SCHEMA_DIR = Path(__file__).with_name("schemas")


@dataclass(slots=True)
class Settings:
    """The bot's own per-shelf settings (`.memshelf-bot.yml`); CLI flags and inputs override."""

    badge: bool = False
    allow_paths: tuple[str, ...] = ()
    deny_paths: tuple[str, ...] = ()
    branch_patterns: tuple[str, ...] = DEFAULT_BRANCH_PATTERNS
    max_episode_bytes: int = 1024 * 1024
    context_window: int = DEFAULT_CONTEXT_WINDOW
    comment: str = "auto"
    strict: bool = False
    auto_merge: bool = False
    commit_message: str = "memshelf-bot: render derived files [skip ci]"
    restore_derived: bool = True
    dashboard: bool = True  # keep the `Shelf dashboard` issue after each render on the default branch

    @classmethod
    def from_mapping(cls, data: dict[str, Any]) -> Settings:
        """Known keys whose values have the default's type; the schema reports anything else."""
        s = cls()
        for key, value in data.items():
            if not isinstance(key, str) or key not in cls.__dataclass_fields__:
                continue
            value = tuple(value) if isinstance(value, list) else value
            default = getattr(s, key)
            if type(value) is type(default) or (isinstance(default, tuple) and isinstance(value, tuple)):
                setattr(s, key, value)
        return s


@dataclass(slots=True)
class DocshelfConfig:
    """`.docshelf.json`, with the renderer's defaults for anything absent."""

    name: str = "Document Shelf"
    preamble: str | None = None
    provider: str = "github"
    remote: str = ""
    branch: str = "main"
    category_order: tuple[str, ...] = ()
    index_style: str = "auto"
    subindex_threshold_sections: int = 10
    url_template: str = ""
    present: bool = False


@dataclass(slots=True)
class EpisodeRef:
    path: str  # shelf-relative, POSIX
    category: str
    archived: bool


@dataclass(slots=True)
class Layout:
    """What discovery found under the docs root and the archive, by lstat only."""

    episodes: list[EpisodeRef] = field(default_factory=list)
    categories: list[str] = field(default_factory=list)
    archive_categories: list[str] = field(default_factory=list)
    split_dirs: list[str] = field(default_factory=list)
    stray_files: list[str] = field(default_factory=list)
    symlinks: list[str] = field(default_factory=list)
    submodules: list[str] = field(default_factory=list)

    def stems(self) -> set[str]:
        return {paths.stem(ref.path) for ref in self.episodes}


@dataclass
class Shelf:
    root: Path
    manifest: dict[str, Any]
    manifest_lines: dict[str, int]
    settings: Settings
    docshelf: DocshelfConfig
    docshelf_problem: str | None = None
    settings_data: Any = None  # `.memshelf-bot.yml` as read, and its keys' lines, for the schema check
    settings_lines: dict[str, int] = field(default_factory=dict)

    @property
    def profile(self) -> str:
        return str(self.manifest.get("profile", "document"))

    @property
    def is_memory(self) -> bool:
        return self.profile == "memory"

    @property
    def docs_root(self) -> str:
        return str(self.manifest.get("docs_root", "docs")).strip("/")

    @property
    def archive_docs_root(self) -> str:
        return f"{ARCHIVE_DIR}/{self.docs_root}"

    @property
    def declared_categories(self) -> list[str] | None:
        cats = self.manifest.get("categories")
        return list(cats) if isinstance(cats, list) else None

    def _section(self, name: str) -> dict[str, Any]:
        value = self.manifest.get(name)
        return value if isinstance(value, dict) else {}

    @property
    def index_path(self) -> str:
        return self._section("index").get("path", "INDEX.md")

    @property
    def generated_by(self) -> str:
        return self._section("index").get("generated_by", "docshelf-mcp")

    @property
    def ledger_path(self) -> str:
        return self._section("ledger").get("path", "ledger.tsv")

    @property
    def policy_path(self) -> str:
        return self._section("policy").get("path", "POLICY.md")

    @property
    def patterns_path(self) -> str:
        return self._section("policy").get("patterns", "POLICY.patterns")

    @property
    def extra_dirs(self) -> list[str]:
        dirs = self.manifest.get("extra_dirs")
        return [d.strip("/") for d in dirs] if isinstance(dirs, list) else []

    def abs(self, rel: str) -> Path:
        return self.root / rel

    def read_text(self, rel: str) -> str | None:
        """A shelf file's text (universal newlines), or None if absent, a symlink or not a file."""
        data = self.read_bytes(rel)
        if data is None:
            return None
        text = data.decode("utf-8", errors="replace")
        return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text

    def read_bytes(self, rel: str) -> bytes | None:
        """A shelf file's bytes, or None if absent, outside the shelf, reached through a symbolic
        link (at any component) or not a regular file."""
        return paths.read_regular(self.root, rel)[0]

    def is_link(self, rel: str) -> bool:
        """Whether `rel` or one of its parents is a symbolic link (or it lies outside the shelf)."""
        return paths.problem(self.root, rel) is not None

    @cached_property
    def _root_str(self) -> str:
        return str(self.root)

    @cached_property
    def layout(self) -> Layout:
        """What discovery found; a link on the way to a file the shelf names (policy files, the
        recall log, `.gitmodules`, extra dirs) is recorded with the links, so it is reported."""
        layout = discover(self.root, self.docs_root, self.archive_docs_root, self.extra_dirs)
        for rel in (self.policy_path, self.patterns_path, RECALL_LOG, ".gitmodules", *self.extra_dirs):
            link = paths.first_link(self.root, rel)
            if link is not None and link not in layout.symlinks:
                layout.symlinks.append(link)
        return layout

    def parse_episode(self, ref: EpisodeRef, *, upto_digest: bool = False,
                      read: tuple[bytes, int] | None = None) -> Episode:
        """Parse one discovered episode with the shelf's size cap (the one parser). With
        `upto_digest` (the renderers) only the file's first HEAD_BYTES are read, to their last
        whole line, when the Digest and the section after it start there: a 20-60 KB episode of
        logs is then neither read, decoded nor split past its Digest. `read`: the regular
        file's whole bytes and size, already read (by the cache, which hashed them)."""
        cap = self.settings.max_episode_bytes
        if read is not None:
            return parse(read[0], ref.path, category=ref.category, archived=ref.archived, size=read[1],
                         max_bytes=cap, upto_digest=upto_digest)
        if paths.undecodable(ref.path):  # an id is text: no row, no INDEX entry for such a name
            return _unreadable(ref, "the file name is not valid UTF-8 (not read)", "invalid-utf8")
        full = os.path.join(self._root_str, ref.path)
        try:
            mode = os.lstat(full).st_mode
            if not stat.S_ISREG(mode):  # a FIFO would block the open, a device may act on it
                return _unreadable(ref, f"is {paths.kind_of(mode)}, not a regular file (not read)")
            data, size = read_bytes(full, cap, head=HEAD_BYTES if upto_digest else None)
            if upto_digest and len(data) < size <= cap:  # the renderers' parse, from the file's head
                ep = parse(data[: data.rfind(b"\n") + 1], ref.path, category=ref.category, archived=ref.archived,
                           size=size, max_bytes=cap, upto_digest=True)
                if ep.digest_ended:
                    return ep
                data, size = read_bytes(full, cap)
        except OSError as exc:
            return _unreadable(ref, f"cannot be read: {exc.strerror}")
        return parse(data, ref.path, category=ref.category, archived=ref.archived, size=size, max_bytes=cap,
                     upto_digest=upto_digest)

    @cached_property
    def episodes(self) -> list[Episode]:
        """Every discovered episode (docs, then archive), parsed once."""
        return [self.parse_episode(ref) for ref in self.layout.episodes]


def _unreadable(ref: EpisodeRef, why: str, code: str = "file-unreadable") -> Episode:
    ep = Episode(ref.path, paths.stem(ref.path), ref.category, ref.archived, readable=False)
    ep.problems.append(Finding(code, ref.path, None, why))
    return ep


def _scandir(path: Path) -> list[os.DirEntry]:
    try:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)
    except OSError:
        return []


def _is_repo(path: Path) -> bool:
    try:
        os.lstat(path / ".git")
        return True
    except OSError:
        return False


def discover(root: Path, docs_root: str, archive_root: str, extra_dirs: list[str] | None = None) -> Layout:
    """Walk the docs root and the archive with lstat; record links, never follow them (a docs
    root or archive reached through a link is recorded as that link and not walked)."""
    layout = Layout()
    extra = set(extra_dirs or ())
    for base, archived in ((docs_root, False), (archive_root, True)):
        link = paths.first_link(root, base)
        if link is not None:
            if link not in layout.symlinks:
                layout.symlinks.append(link)
            continue
        if paths.problem(root, base) is not None:
            continue
        base_path = root / base
        for entry in _scandir(base_path):
            rel = f"{base}/{entry.name}"
            if entry.is_symlink():
                layout.symlinks.append(rel)
                continue
            if not entry.is_dir(follow_symlinks=False):
                if entry.name.endswith(".md") and not archived:
                    layout.stray_files.append(rel)
                continue
            if entry.name.startswith("."):
                continue
            if rel in extra:
                continue
            if _is_repo(Path(entry.path)):
                layout.submodules.append(rel)
                continue
            (layout.archive_categories if archived else layout.categories).append(entry.name)
            _scan_category(layout, Path(entry.path), rel, entry.name, archived)
    return layout


def _scan_category(layout: Layout, path: Path, rel: str, category: str, archived: bool) -> None:
    for entry in _scandir(path):
        child = f"{rel}/{entry.name}"
        if entry.is_symlink():
            layout.symlinks.append(child)
        elif not entry.is_dir(follow_symlinks=False):
            # regular or not (a FIFO, a device): an episode; parsing refuses what is not regular
            if entry.name.endswith(".md") and entry.name != "SUBINDEX.md":
                layout.episodes.append(EpisodeRef(child, category, archived))
        elif not entry.name.startswith("."):
            if _is_repo(Path(entry.path)):
                layout.submodules.append(child)
                continue
            layout.split_dirs.append(child)
            _scan_links(layout, Path(entry.path), child)


def _scan_links(layout: Layout, path: Path, rel: str) -> None:
    for entry in _scandir(path):
        child = f"{rel}/{entry.name}"
        if entry.is_symlink():
            layout.symlinks.append(child)
        elif entry.is_dir(follow_symlinks=False):
            _scan_links(layout, Path(entry.path), child)


# --- loading ---------------------------------------------------------------------------------


def _load_schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))


def _schema_errors(data: Any, schema_name: str) -> list[tuple[str, str]]:
    """(top-level key or '', message) per schema violation, in a stable order. A config that
    surely conforms (`schema_subset`) needs no jsonschema, whose import costs more than the rest."""
    schema = _load_schema(schema_name)
    if conforms(data, schema):
        return []
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        where = ".".join(str(p) for p in err.absolute_path)
        out.append((str(err.absolute_path[0]) if err.absolute_path else "", f"{where or '(top level)'}: {err.message}"))
    return out


def _finding(code: str, rel: str, line: int | None, message: str) -> Finding:
    """A config finding; its message may quote a config value, so it is masked."""
    return Finding(code, rel, line, mask(message))


def _load_yaml_file(root: Path, rel: str, code: str) -> tuple[Any, dict[str, int], list[Finding]]:
    """A config file's YAML (None when absent), its top-level key lines, and why it is unusable."""
    raw, why = paths.read_regular(root, rel)
    if why is not None:
        return None, {}, [_finding(code, rel, None, f"{rel} {why}")]
    if raw is None:
        return None, {}, []
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, {}, [_finding(code, rel, None, "not valid UTF-8")]
    try:
        node = yamlload.compose(text)
        data = None if node is None else yamlload.construct(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return None, {}, [_finding(code, rel, mark.line + 1 if mark else None, f"not valid YAML: {exc.problem}")]
    except (yaml.YAMLError, ValueError) as exc:
        return None, {}, [_finding(code, rel, None, f"not valid YAML: {exc}")]
    except RecursionError:
        return None, {}, [_finding(code, rel, None, "not valid YAML: nested too deeply")]
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            lines[str(key.value)] = key.start_mark.line + 1
    return data, lines, []


def _read_settings(root: Path) -> tuple[Any, dict[str, int], list[Finding]]:
    """`.memshelf-bot.yml` as YAML (absent: an empty mapping); schema checked separately."""
    data, lines, problems = _load_yaml_file(root, SETTINGS, "settings-invalid")
    return ({} if data is None and not problems else data), lines, problems


def _schema_findings(code: str, rel: str, data: Any, lines: dict[str, int], schema: str) -> list[Finding]:
    try:
        errors = _schema_errors(data, schema)
    except RecursionError:
        return [_finding(code, rel, None, f"{rel} is nested too deeply to check")]
    return [_finding(code, rel, lines.get(key), msg) for key, msg in errors]


def _settings_findings(settings: Any, lines: dict[str, int]) -> list[Finding]:
    return _schema_findings("settings-invalid", SETTINGS, settings, lines, "settings.schema.json")


def schema_findings(manifest: Any, manifest_lines: dict[str, int], settings: Any,
                    settings_lines: dict[str, int]) -> list[Finding]:
    """shelf.yml against the shelf-spec schema and the derived-path rules, `.memshelf-bot.yml`
    against ours."""
    found = _schema_findings("manifest-invalid", MANIFEST, manifest, manifest_lines, "shelf.schema.json")
    found = found or derived_path_findings(manifest, manifest_lines)
    return found or _settings_findings(settings, settings_lines)


_FIXED_DERIVED = ("stats.svg", "badge.svg", "badge.json", f"{ARCHIVE_DIR}/INDEX.md")
_FORBIDDEN_DIRS = (".git", ".github")


def _derived_path_problem(path: str, manifest: dict[str, Any]) -> str | None:
    """Why a manifest-named derived path (index or ledger) would overwrite something that is not
    derived, or leave the shelf; None when it is safe to render to."""
    norm = paths.normalize(path)
    parts = paths.parts_of(norm)
    if parts is None or path.startswith("/"):
        return "is outside the shelf"
    if any(p.casefold() in _FORBIDDEN_DIRS for p in parts):
        return f"lies under {next(p for p in parts if p.casefold() in _FORBIDDEN_DIRS)}/, which render never writes"
    policy = manifest.get("policy") if isinstance(manifest.get("policy"), dict) else {}
    own = {MANIFEST, SETTINGS, DOCSHELF, f"{ARCHIVE_DIR}/{DOCSHELF}", RECALL_LOG, ".gitmodules",
           ".gitattributes", ".gitignore", paths.normalize(str(policy.get("path", "POLICY.md"))),
           paths.normalize(str(policy.get("patterns", "POLICY.patterns")))}
    if norm in own:
        return f"is {norm}, which is not a derived file"
    if norm in _FIXED_DERIVED or norm.rsplit("/", 1)[-1] in (".meta.json", "SUBINDEX.md"):
        return f"collides with the derived {norm}"
    docs = paths.normalize(str(manifest.get("docs_root", "docs")))
    for base in (docs, f"{ARCHIVE_DIR}/{docs}"):
        if norm.startswith(base + "/") and norm.endswith(".md"):
            return f"is a Markdown file under {base}/, where episodes live"
    return None


def derived_path_findings(manifest: dict[str, Any], lines: dict[str, int]) -> list[Finding]:
    """`index.path` and `ledger.path` must name a path render may overwrite: inside the shelf,
    not a config, policy or recall-log file, not under `.git/`, not an episode, not each other."""
    found, seen = [], {}
    for section, default in (("index", "INDEX.md"), ("ledger", "ledger.tsv")):
        value = manifest.get(section)
        path = value.get("path", default) if isinstance(value, dict) else default
        if not isinstance(path, str):
            continue
        why = _derived_path_problem(path, manifest)
        if why is None and paths.normalize(path) in seen:
            why = f"is also {seen[paths.normalize(path)]}.path"
        seen[paths.normalize(path)] = section
        if why is not None:
            found.append(_finding("manifest-invalid", MANIFEST, lines.get(section), f"{section}.path '{path}' {why}"))
    return found


def load_settings(root: Path) -> tuple[Settings | None, list[Finding]]:
    """`.memshelf-bot.yml` alone, schema-checked (absent: the defaults)."""
    data, lines, problems = _read_settings(root)
    problems = problems or _settings_findings(data, lines)
    return (None, problems) if problems else (Settings.from_mapping(data), [])


def schema_problems(shelf: Shelf) -> list[Finding]:
    """The schema checks `load_shelf(..., defer_schemas=True)` left to its caller."""
    return schema_findings(shelf.manifest, shelf.manifest_lines, shelf.settings_data, shelf.settings_lines)


def load_docshelf(root: Path, rel: str = DOCSHELF) -> tuple[DocshelfConfig, str | None]:
    """Renderer config with defaults; a second value (masked) describes why the file was unusable."""
    raw, why = paths.read_regular(root, rel)
    if why is not None:
        return DocshelfConfig(), why
    if raw is None:
        return DocshelfConfig(), None
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return DocshelfConfig(), mask(f"not valid JSON: {exc}")
    except RecursionError:
        return DocshelfConfig(), "not valid JSON: nested too deeply"
    cfg, problem = docshelf_from_mapping(data)
    return cfg, None if problem is None else mask(problem)


def docshelf_from_mapping(data: Any) -> tuple[DocshelfConfig, str | None]:
    cfg = DocshelfConfig(present=True)
    if not isinstance(data, dict):
        return cfg, "the top level is not a JSON object"
    for key in ("name", "provider", "remote", "branch", "index_style", "url_template"):
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            return cfg, f"{key} is not a string"
        setattr(cfg, key, value)
    if "preamble" in data:
        if data["preamble"] is not None and not isinstance(data["preamble"], str):
            return cfg, "preamble is not a string"
        cfg.preamble = data["preamble"] or ""
    order = data.get("category_order")
    if order is not None:
        if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
            return cfg, "category_order is not a list of strings"
        cfg.category_order = tuple(order)
    threshold = data.get("subindex_threshold_sections")
    if threshold is not None:
        if not isinstance(threshold, int) or isinstance(threshold, bool):
            return cfg, "subindex_threshold_sections is not an integer"
        cfg.subindex_threshold_sections = threshold
    return cfg, None


def load_shelf(root: str | Path, *, defer_schemas: bool = False) -> tuple[Shelf | None, list[Finding]]:
    """Load the manifest and settings; config findings (exit 2) come back with no Shelf.

    `defer_schemas` leaves the JSON-Schema checks to `schema_problems(shelf)`, so a caller can
    start work that needs only the parsed files (and import jsonschema) in the meantime."""
    root = Path(root)
    if not root.is_dir():
        what = "does not exist" if not os.path.lexists(root) else "is not a directory"
        return None, [_finding("manifest-missing", MANIFEST, None, f"the shelf path {root} {what}")]
    data, lines, problems = _load_yaml_file(root, MANIFEST, "manifest-invalid")
    if problems:
        return None, problems
    if data is None and not paths.exists(root, MANIFEST):
        return None, [Finding("manifest-missing", MANIFEST, None, "no shelf.yml at the shelf root")]
    if not isinstance(data, dict):
        return None, [Finding("manifest-invalid", MANIFEST, 1, "shelf.yml is not a mapping of keys to values")]
    settings_data, settings_lines, problems = _read_settings(root)
    if problems:
        return None, problems
    if not defer_schemas:
        problems = schema_findings(data, lines, settings_data, settings_lines)
        if problems:
            return None, problems
    settings = Settings.from_mapping(settings_data if isinstance(settings_data, dict) else {})
    docshelf, problem = load_docshelf(root)
    return Shelf(root, data, lines, settings, docshelf, problem, settings_data, settings_lines), []
