"""The shelf model: manifest, renderer config, bot settings and where the episodes are.

Loading a shelf never follows a symlink and never reads outside the shelf root. A missing or
schema-invalid `shelf.yml` (or `.memshelf-bot.yml`) is a config finding and no `Shelf`.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import yaml

from . import yamlload
from .episode import Episode, parse, read_bytes
from .findings import Finding

MANIFEST = "shelf.yml"
SETTINGS = ".memshelf-bot.yml"
DOCSHELF = ".docshelf.json"
ARCHIVE_DIR = "archive"
STANDARD_CATEGORIES = ("topics", "research", "sessions")
KIND_OF_CATEGORY = {"topics": "topic", "research": "research", "sessions": "session"}
DEFAULT_BRANCH_PATTERNS = ("shelve/**", "night-shift/**", "shift/**")
DEFAULT_CONTEXT_WINDOW = 200_000
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
        return {ref.path.rsplit("/", 1)[-1][:-3] for ref in self.episodes}


@dataclass
class Shelf:
    root: Path
    manifest: dict[str, Any]
    manifest_lines: dict[str, int]
    settings: Settings
    docshelf: DocshelfConfig
    docshelf_problem: str | None = None
    unchecked_schemas: tuple | None = None

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

    def schema_problems(self) -> list[Finding]:
        """The deferred schema checks of `load_shelf(..., defer_schemas=True)` (once)."""
        pending, self.unchecked_schemas = self.unchecked_schemas, None
        return schema_findings(*pending) if pending else []

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
        path = self.root / rel
        try:
            st = os.lstat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
        try:
            return path.read_bytes()
        except OSError:
            return None

    def is_link(self, rel: str) -> bool:
        try:
            return stat.S_ISLNK(os.lstat(self.root / rel).st_mode)
        except OSError:
            return False

    @cached_property
    def _root_str(self) -> str:
        return str(self.root)

    @cached_property
    def layout(self) -> Layout:
        return discover(self.root, self.docs_root, self.archive_docs_root, self.extra_dirs)

    def parse_episode(self, ref: EpisodeRef, *, upto_digest: bool = False) -> Episode:
        """Parse one discovered episode with the shelf's size cap (the one parser)."""
        cap = self.settings.max_episode_bytes
        try:
            data, size = read_bytes(os.path.join(self._root_str, ref.path), cap)
        except OSError as exc:
            ep = Episode(ref.path, ref.path.rsplit("/", 1)[-1][:-3], ref.category, ref.archived, readable=False)
            ep.problems.append(Finding("file-unreadable", ref.path, None, f"cannot be read: {exc.strerror}"))
            return ep
        return parse(data, ref.path, category=ref.category, archived=ref.archived, size=size, max_bytes=cap,
                     upto_digest=upto_digest)

    @cached_property
    def episodes(self) -> list[Episode]:
        """Every discovered episode (docs, then archive), parsed once."""
        return [self.parse_episode(ref) for ref in self.layout.episodes]


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
    """Walk the docs root and the archive with lstat; record links, never follow them."""
    layout = Layout()
    extra = set(extra_dirs or ())
    for base, archived in ((docs_root, False), (archive_root, True)):
        base_path = root / base
        for entry in _scandir(base_path):
            rel = f"{base}/{entry.name}"
            if entry.is_symlink():
                layout.symlinks.append(rel)
                continue
            if entry.is_file(follow_symlinks=False):
                if entry.name.endswith(".md") and not archived:
                    layout.stray_files.append(rel)
                continue
            if not entry.is_dir(follow_symlinks=False) or entry.name.startswith("."):
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
        elif entry.is_file(follow_symlinks=False):
            if entry.name.endswith(".md") and entry.name != "SUBINDEX.md":
                layout.episodes.append(EpisodeRef(child, category, archived))
        elif entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
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
    """(top-level key or '', message) per schema violation, in a stable order."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(_load_schema(schema_name))
    out = []
    for err in sorted(validator.iter_errors(data), key=lambda e: (list(map(str, e.absolute_path)), e.message)):
        where = ".".join(str(p) for p in err.absolute_path)
        out.append((str(err.absolute_path[0]) if err.absolute_path else "", f"{where or '(top level)'}: {err.message}"))
    return out


def _load_yaml_file(root: Path, rel: str, code: str) -> tuple[Any, dict[str, int], list[Finding]]:
    path = root / rel
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, {}, [Finding(code, rel, None, "not valid UTF-8")]
    except OSError as exc:
        return None, {}, [Finding(code, rel, None, f"cannot be read: {exc.strerror}")]
    try:
        node = yamlload.compose(text)
        data = None if node is None else yamlload.construct(node)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        return None, {}, [Finding(code, rel, mark.line + 1 if mark else None, f"not valid YAML: {exc.problem}")]
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        return None, {}, [Finding(code, rel, None, f"not valid YAML: {exc}")]
    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key, _ in node.value:
            lines[str(key.value)] = key.start_mark.line + 1
    return data, lines, []


def _read_settings(root: Path) -> tuple[Any, dict[str, int], list[Finding]]:
    """`.memshelf-bot.yml` as YAML (absent: an empty mapping); schema checked separately."""
    path = root / SETTINGS
    if os.path.islink(path):
        return None, {}, [Finding("settings-invalid", SETTINGS, None, "is a symbolic link (not followed)")]
    if not path.exists():
        return {}, {}, []
    data, lines, problems = _load_yaml_file(root, SETTINGS, "settings-invalid")
    return ({} if data is None and not problems else data), lines, problems


def _settings_findings(settings: Any, lines: dict[str, int]) -> list[Finding]:
    return [Finding("settings-invalid", SETTINGS, lines.get(key), msg)
            for key, msg in _schema_errors(settings, "settings.schema.json")]


def schema_findings(manifest: Any, manifest_lines: dict[str, int], settings: Any,
                    settings_lines: dict[str, int]) -> list[Finding]:
    """shelf.yml against the shelf-spec schema, `.memshelf-bot.yml` against ours."""
    found = [Finding("manifest-invalid", MANIFEST, manifest_lines.get(key), msg)
             for key, msg in _schema_errors(manifest, "shelf.schema.json")]
    return found or _settings_findings(settings, settings_lines)


def load_settings(root: Path) -> tuple[Settings | None, list[Finding]]:
    """`.memshelf-bot.yml` alone, schema-checked (absent: the defaults)."""
    data, lines, problems = _read_settings(root)
    problems = problems or _settings_findings(data, lines)
    return (None, problems) if problems else (Settings.from_mapping(data), [])


def load_docshelf(root: Path) -> tuple[DocshelfConfig, str | None]:
    """Renderer config with defaults; a second value describes why the file was unusable."""
    path = root / DOCSHELF
    if os.path.islink(path):
        return DocshelfConfig(), "is a symbolic link (not followed)"
    if not path.is_file():
        return DocshelfConfig(), None
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        return DocshelfConfig(), f"not valid JSON: {exc}"
    return docshelf_from_mapping(data)


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

    `defer_schemas` leaves the JSON-Schema checks to `Shelf.schema_problems()`, so a caller can
    start work that needs only the parsed files (and import jsonschema) in the meantime."""
    root = Path(root)
    manifest_path = root / MANIFEST
    if os.path.islink(manifest_path):
        return None, [Finding("manifest-invalid", MANIFEST, None, "shelf.yml is a symbolic link (not followed)")]
    if not manifest_path.is_file():
        where = "" if root.is_dir() else " (the shelf path is not a directory)"
        return None, [Finding("manifest-missing", MANIFEST, None, f"no shelf.yml at the shelf root{where}")]
    data, lines, problems = _load_yaml_file(root, MANIFEST, "manifest-invalid")
    if problems:
        return None, problems
    if not isinstance(data, dict):
        return None, [Finding("manifest-invalid", MANIFEST, 1, "shelf.yml is not a mapping of keys to values")]
    settings_data, settings_lines, problems = _read_settings(root)
    if problems:
        return None, problems
    pending = (data, lines, settings_data, settings_lines)
    if not defer_schemas:
        problems = schema_findings(*pending)
        if problems:
            return None, problems
    settings = Settings.from_mapping(settings_data if isinstance(settings_data, dict) else {})
    docshelf, problem = load_docshelf(root)
    shelf = Shelf(root, data, lines, settings, docshelf, problem)
    shelf.unchecked_schemas = pending if defer_schemas else None
    return shelf, []


def report_config(problems: list[Finding]) -> None:
    """Config findings for a command-line front-end: to stderr, one a line (the caller exits 2)."""
    for f in problems:
        where = f"{f.path}:{f.line}" if f.line else f.path
        print(f"{where}: {f.code}: {f.message}", file=sys.stderr)


def load_for_command(root: str | Path, *, defer_schemas: bool = False) -> Shelf | None:
    """`load_shelf` for a command-line front-end: None (after `report_config`) means exit 2."""
    shelf, problems = load_shelf(root, defer_schemas=defer_schemas)
    report_config(problems)
    return shelf
