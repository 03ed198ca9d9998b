"""URL resolution per provider (docs/reference.md §8.4): every row below was checked against
docshelf-mcp 0.5.0's INDEX output."""

from __future__ import annotations

import pytest

from memshelf_render.render.links import Links, parse_remote, raw_url
from memshelf_render.shelf import DocshelfConfig

PATH = "docs/topics/2026-01-02-ünï~x(1)&q=#%.md"
ENCODED = "docs/topics/2026-01-02-%C3%BCn%C3%AF~x%281%29%26q%3D%23%25.md"


def cfg(provider: str, remote: str, branch: str = "main", template: str = "") -> DocshelfConfig:
    return DocshelfConfig(provider=provider, remote=remote, branch=branch, url_template=template)


@pytest.mark.parametrize(("remote", "url"), [
    ("https://github.com/acme/mem-shelf.git", "https://raw.githubusercontent.com/acme/mem-shelf/main/p.md"),
    ("git@github.com:acme/mem.shelf.git.", "https://raw.githubusercontent.com/acme/mem.shelf/main/p.md"),
    ("https://user@github.com/acme/x.git", "https://raw.githubusercontent.com/acme/x/main/p.md"),
    ("https://github.com/acme/x/tree/main", "https://raw.githubusercontent.com/acme/x/main/p.md"),
    ("https://github.com/acme/x#frag", "https://raw.githubusercontent.com/acme/x/main/p.md"),
    ("https://github.com/acme/x..git", "https://raw.githubusercontent.com/acme/x./main/p.md"),
    ("https://github.com/acme/x.git.git", "https://raw.githubusercontent.com/acme/x.git/main/p.md"),
    ("https://notgithub.com/acme/x", "https://raw.githubusercontent.com/acme/x/main/p.md"),
    (" https://github.com/acme/x ", "https://raw.githubusercontent.com/acme/x/main/p.md"),
    ("ssh://git@github.com:22/acme/x.git", "https://raw.githubusercontent.com/22/acme/main/p.md"),
    ("https://ghe.github.corp.com/acme/x.git", "https://ghe.github.corp.com/acme/x/raw/main/p.md"),
    ("HTTPS://GitHub.com/Acme/X.GIT", "https://GitHub.com/Acme/X.GIT/raw/main/p.md"),
    ("git@git@github.io/o/r", "https://git@github.io/o/r/raw/main/p.md"),
    ("https://github.io:8080/o/r", "https://github.io/8080/o/raw/main/p.md"),
    ("", None),
    ("   ", None),
    ("https://gitlab.com/acme/x", None),
    ("github.com/acme", None),
    ("http://github.com/acme/", None),
    ("https://github.com/acme/.git", None),
    ("https://github.com//acme/x", None),
    ("github.com:acme:x", None),
    ("https://github.company.com", None),
    ("https://foo.com/github/x/y", None),
    ("file:///srv/github/a/b", None),
])
def test_github_provider(remote, url):
    assert raw_url(cfg("github", remote), "p.md") == url


def test_empty_provider_means_github():
    assert raw_url(cfg("", "https://github.com/o/r"), "p.md") == "https://raw.githubusercontent.com/o/r/main/p.md"


@pytest.mark.parametrize(("provider", "remote", "url"), [
    ("gitlab", "git@gitlab.example.com:grp/proj.git", "https://gitlab.example.com/grp/proj/-/raw/main/p.md"),
    ("gitlab", "https://user@github.com/acme/x.git", "https://user@github.com/acme/x/-/raw/main/p.md"),
    ("gitlab", "", None),
    ("gitea", "https://gitea.io/o/r", "https://gitea.io/o/r/raw/branch/main/p.md"),
    ("gitea", "https://gitea.io/o/r.git/", "https://gitea.io/o/r/raw/branch/main/p.md"),
    ("gitea", "https://github.com/ac me/x y", None),
    ("GitHub", "https://github.com/o/r", None),
    ("bogus", "https://github.com/o/r", None),
])
def test_gitlab_gitea_and_unknown_providers(provider, remote, url):
    assert raw_url(cfg(provider, remote), "p.md") == url


@pytest.mark.parametrize(("template", "remote", "url"), [
    ("X{owner}|{repo}|{branch}|{path}", "https://h/o/r", "Xo|r|main|p.md"),
    ("{owner}|{repo}|{path}", "https://github.com/acme/x..git", "acme|x.|p.md"),
    ("{owner}|{repo}|{path}", "github.io", "||p.md"),
    ("{{x}}{path}", "https://h/o/r", "{x}p.md"),
    ("plain", "https://h/o/r", "plain"),
    ("", "https://h/o/r", None),
    ("{foo}", "https://h/o/r", None),
    ("{0}", "https://h/o/r", None),
    ("{host}/{path}", "https://h/o/r", None),
])
def test_custom_template(template, remote, url):
    assert raw_url(cfg("custom", remote, template=template), "p.md") == url


@pytest.mark.parametrize("template", ["{", "}", "{path!r}", "{path:>30}", "{owner.x}", "{path[0]}"])
def test_deliberate_difference_custom_template_is_not_python_format(template):
    """The reference evaluates the template with `str.format` ({path!r} quotes, {owner.x} reads an
    attribute, a lone brace aborts the whole INDEX); here only the four fields exist, else no URL."""
    assert raw_url(cfg("custom", "https://h/o/r", template=template), "p.md") is None


def test_path_is_percent_encoded_and_branch_verbatim():
    assert raw_url(cfg("github", "https://github.com/o/r", branch="dev/x y"), PATH) == \
        f"https://raw.githubusercontent.com/o/r/dev/x y/{ENCODED}"
    assert raw_url(cfg("custom", "https://h/o/r", template="{path}"), PATH) == ENCODED


def test_provider_none_links_are_relative_to_the_writing_file():
    links = Links(cfg("none", ""))
    assert links.url(PATH) == ENCODED
    assert links.url("docs/topics/a b.md") == "docs/topics/a%20b.md"
    nested = Links(cfg("none", ""), "docs/topics/big")
    assert nested.url("docs/topics/big.md") == "../big.md"
    assert nested.url("docs/topics/big/001-a b.md") == "001-a%20b.md"
    assert nested.shown("docs/topics/big/001-a b.md") == "001-a b.md"


def test_parse_remote():
    assert parse_remote("git@gitlab.example.com:grp/proj.git").repo == "proj"
    assert parse_remote("https://a@b@github.io/o/r").host == "a@b@github.io"
    assert parse_remote("https://github.com/acme/x\ty").repo == "x"
    assert parse_remote("https://github.com/acme/x:y").repo == "x:y"
    assert parse_remote("https://x.github.io/o") is None
