"""Where an INDEX entry points: a raw-file URL on the shelf's forge, a relative path, or nothing.

The URL forms follow docs/reference.md §8.4 byte for byte (path percent-encoded except `/`, the
branch verbatim). One deliberate difference: a `custom` url_template may use only `{owner}`,
`{repo}`, `{branch}`, `{path}` and `{{`/`}}`; any other field, conversion or format spec yields no
URL (the reference hands the template to `str.format`, so `{path!r}` or `{owner.x}` are evaluated
and a lone `{` aborts the whole INDEX).
"""

from __future__ import annotations

import posixpath
import re
import string
from dataclasses import dataclass
from urllib.parse import quote

from ..shelf import DocshelfConfig

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_HOST_OWNER_REPO = re.compile(r"([^/:\s]+)[:/]([^/\s#?]+)/([^/\s#?]+)")
_GITHUB_COM = re.compile(r"github\.com[:/]([^/\s#?]+)/([^/\s#?]+)")
_TEMPLATE_FIELDS = frozenset({"owner", "repo", "branch", "path"})


@dataclass(frozen=True, slots=True)
class Remote:
    host: str
    owner: str
    repo: str


def _repo_name(raw: str) -> str:
    """`mem-shelf.git` -> `mem-shelf`; trailing dots go first (`x.git.` -> `x`)."""
    name = raw.rstrip(".")
    return name[:-4] if name.endswith(".git") else name


def parse_remote(remote: str) -> Remote | None:
    """Host, owner and repository of a clone URL (https, ssh, scp-like `git@host:owner/repo`)."""
    text = remote.strip()
    scheme = _SCHEME.match(text)
    if scheme:
        text = text[scheme.end():]
    text = text.removeprefix("git@")
    m = _HOST_OWNER_REPO.match(text)
    if m is None:
        return None
    repo = _repo_name(m[3])
    return Remote(m[1], m[2], repo) if repo else None


def _github_url(cfg: DocshelfConfig, path: str) -> str | None:
    m = _GITHUB_COM.search(cfg.remote.strip())
    if m and _repo_name(m[2]):
        return f"https://raw.githubusercontent.com/{m[1]}/{_repo_name(m[2])}/{cfg.branch}/{path}"
    r = parse_remote(cfg.remote)
    if r is None or "github" not in r.host.lower():
        return None
    return f"https://{r.host}/{r.owner}/{r.repo}/raw/{cfg.branch}/{path}"


def _custom_url(cfg: DocshelfConfig, path: str) -> str | None:
    template = cfg.url_template
    if not template:
        return None
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return None
    for _, field, spec, conversion in parts:
        if field is not None and (field not in _TEMPLATE_FIELDS or spec or conversion):
            return None
    r = parse_remote(cfg.remote)
    return template.format(owner=r.owner if r else "", repo=r.repo if r else "", branch=cfg.branch, path=path)


def raw_url(cfg: DocshelfConfig, path: str) -> str | None:
    """The forge URL of a file (path relative to the rendered root), or None when the provider
    and remote give none. Provider `none` is handled by `Links` (a relative link)."""
    encoded = quote(path, safe="/", errors="surrogateescape")
    provider = cfg.provider or "github"
    if provider == "github":
        return _github_url(cfg, encoded)
    if provider == "custom":
        return _custom_url(cfg, encoded)
    if provider not in ("gitlab", "gitea"):
        return None
    r = parse_remote(cfg.remote)
    if r is None:
        return None
    middle = "-/raw" if provider == "gitlab" else "raw/branch"
    return f"https://{r.host}/{r.owner}/{r.repo}/{middle}/{cfg.branch}/{encoded}"


class Links:
    """Links written into one file that lives in `base` (a directory relative to the rendered
    root, "" for the root itself)."""

    def __init__(self, cfg: DocshelfConfig, base: str = "") -> None:
        self.cfg = cfg
        self.base = base or "."
        self.relative_only = cfg.provider == "none"
        # everything a link depends on besides its path (a piece of INDEX that holds links is
        # kept under it: `index.index_categories`)
        self.key = (self.base, cfg.provider, cfg.remote, cfg.branch, cfg.url_template)

    def shown(self, path: str) -> str:
        """The path as text, relative to this file's directory."""
        return posixpath.relpath(path, self.base)

    def relative(self, path: str) -> str:
        return quote(self.shown(path), safe="/", errors="surrogateescape")

    def url(self, path: str) -> str | None:
        """The link target for a file, or None (INDEX then shows the file name instead)."""
        return self.relative(path) if self.relative_only else raw_url(self.cfg, path)
