"""GitHub's JSON representations of the sandbox's objects, every URL pointing at the sandbox.

Shapes follow GitHub's schemas (the response validator enforces them); URL templates are the
ones GitHub sends, rooted at the sandbox's base URL instead of api.github.com / github.com.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from .app import App
from .gitstore import CommitInfo, FileChange, Person, TreeEntry
from .state import (
    CheckRun,
    CheckSuite,
    Comment,
    Issue,
    Label,
    PullRequest,
    Reaction,
    RepoSettings,
    Status,
    User,
    node_id,
)

REPO_TEMPLATES = {
    "archive_url": "/{archive_format}{/ref}", "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}", "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}", "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}", "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}", "contributors_url": "/contributors",
    "deployments_url": "/deployments", "downloads_url": "/downloads", "events_url": "/events",
    "forks_url": "/forks", "git_commits_url": "/git/commits{/sha}", "git_refs_url": "/git/refs{/sha}",
    "git_tags_url": "/git/tags{/sha}", "hooks_url": "/hooks", "issue_comment_url": "/issues/comments{/number}",
    "issue_events_url": "/issues/events{/number}", "issues_url": "/issues{/number}", "keys_url": "/keys{/key_id}",
    "labels_url": "/labels{/name}", "languages_url": "/languages", "merges_url": "/merges",
    "milestones_url": "/milestones{/number}", "notifications_url": "/notifications{?since,all,participating}",
    "pulls_url": "/pulls{/number}", "releases_url": "/releases{/id}", "stargazers_url": "/stargazers",
    "statuses_url": "/statuses/{sha}", "subscribers_url": "/subscribers", "subscription_url": "/subscription",
    "tags_url": "/tags", "teams_url": "/teams", "trees_url": "/git/trees{/sha}",
}
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket")
PERMISSION_FLAGS = ("admin", "maintain", "push", "triage", "pull")
LEVEL_FLAGS = {"admin": 5, "maintain": 4, "push": 3, "triage": 2, "pull": 1}
LEVELS = {"none": 0, "read": 1, "triage": 2, "write": 3, "maintain": 4, "admin": 5}
SANDBOX_APP = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}


@dataclass(frozen=True)
class Urls:
    """The sandbox's addresses: `base` plays both api.github.com and github.com."""

    base: str
    settings: RepoSettings

    @property
    def api(self) -> str:
        return f"{self.base}/repos/{self.settings.full_name}"

    @property
    def html(self) -> str:
        return f"{self.base}/{self.settings.full_name}"


class Views:
    def __init__(self, urls: Urls) -> None:
        self.u = urls
        self.installed_app: App | None = None  # the GitHub App the sandbox plays GitHub for
        self.signed: dict[str, str] = {}  # commit sha -> when GitHub signed it

    # people and apps ----------------------------------------------------------------

    def user(self, user: User | None) -> dict[str, Any] | None:
        if user is None:
            return None
        api = f"{self.u.base}/users/{user.login}"
        return {
            "login": user.login, "id": user.id, "node_id": node_id("U", user.id),
            "avatar_url": f"{self.u.base}/avatars/u/{user.id}?v=4", "gravatar_id": "",
            "url": api, "html_url": f"{self.u.base}/{user.login}",
            "followers_url": f"{api}/followers", "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}", "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions", "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos", "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events", "type": user.type,
            "user_view_type": "public", "site_admin": False,
        }

    def owner(self) -> dict[str, Any]:
        s = self.u.settings
        return self.user(User(s.owner, s.owner_id, s.owner_type))  # type: ignore[return-value]

    def app(self, app_id: int | None = None) -> dict[str, Any]:
        """The App with this id (the installed one), or GitHub Actions (what GITHUB_TOKEN is)."""
        app = self.installed_app
        if app is not None and app_id == app.id:
            return {
                "id": app.id, "slug": app.slug, "node_id": node_id("A", app.id), "client_id": app.client_id,
                "owner": self.user(User(app.owner, self.u.settings.owner_id, self.u.settings.owner_type)),
                "name": app.name, "description": app.description, "external_url": f"{self.u.base}/{app.owner}",
                "html_url": f"{self.u.base}/apps/{app.slug}", "created_at": "2026-01-01T00:00:00Z",
                "updated_at": "2026-01-01T00:00:00Z", "permissions": dict(app.permissions), "events": list(app.events),
            }
        return {
            "id": SANDBOX_APP["id"], "slug": SANDBOX_APP["slug"], "node_id": node_id("A", SANDBOX_APP["id"]),
            "client_id": "Iv1.sandbox", "owner": self.user(User("github", 9919, "Organization")),
            "name": SANDBOX_APP["name"], "description": "Automate your workflow from idea to production",
            "external_url": f"{self.u.base}/features/actions",
            "html_url": f"{self.u.base}/apps/{SANDBOX_APP['slug']}",
            "created_at": "2018-07-30T09:30:17Z", "updated_at": "2019-12-10T19:04:12Z",
            "permissions": {"checks": "write", "contents": "write", "issues": "write",
                            "pull_requests": "write", "statuses": "write", "metadata": "read"},
            "events": ["check_run", "pull_request", "push"],
        }

    # repository ------------------------------------------------------------------------

    def repository(self, permission: str | None = None, full: bool = False) -> dict[str, Any]:
        s, api = self.u.settings, self.u.api
        repo: dict[str, Any] = {
            "id": s.id, "node_id": node_id("R", s.id), "name": s.name, "full_name": s.full_name,
            "private": s.private, "owner": self.owner(), "html_url": self.u.html,
            "description": s.description, "fork": s.fork, "url": api,
            **{key: api + suffix for key, suffix in REPO_TEMPLATES.items()},
            "git_url": f"{self.u.base}/{s.full_name}.git".replace("http://", "git://", 1),
            "ssh_url": f"git@{self.u.base.split('://', 1)[1]}:{s.full_name}.git",
            "clone_url": f"{self.u.html}.git", "svn_url": self.u.html, "mirror_url": None,
            "homepage": None, "language": "Markdown", "forks_count": 0, "forks": 0,
            "stargazers_count": 0, "watchers_count": 0, "watchers": 0, "size": 1, "default_branch": s.default_branch,
            "open_issues_count": 0, "open_issues": 0, "is_template": False, "topics": [],
            "has_issues": True, "has_projects": False, "has_wiki": False, "has_pages": False,
            "has_downloads": True, "has_discussions": False, "archived": False, "disabled": False,
            "visibility": "private" if s.private else "public", "pushed_at": s.created_at,
            "created_at": s.created_at, "updated_at": s.created_at, "license": None, "allow_forking": True,
            "web_commit_signoff_required": False,
        }
        if permission is not None:
            level = LEVELS[permission]
            repo["permissions"] = {flag: level >= LEVEL_FLAGS[flag] for flag in PERMISSION_FLAGS}
        if full:
            repo.update({
                "allow_auto_merge": s.allow_auto_merge, "allow_squash_merge": s.allow_squash_merge,
                "allow_merge_commit": s.allow_merge_commit, "allow_rebase_merge": s.allow_rebase_merge,
                "allow_update_branch": False, "delete_branch_on_merge": s.delete_branch_on_merge,
                "use_squash_pr_title_as_default": False, "squash_merge_commit_title": "COMMIT_OR_PR_TITLE",
                "squash_merge_commit_message": "COMMIT_MESSAGES", "merge_commit_title": "MERGE_MESSAGE",
                "merge_commit_message": "PR_TITLE", "network_count": 0, "subscribers_count": 0,
            })
            if s.owner_type == "Organization":
                repo["organization"] = self.owner()
        return repo

    # issues, pulls, comments, labels ----------------------------------------------------

    def label(self, label: Label) -> dict[str, Any]:
        return {"id": label.id, "node_id": node_id("LA", label.id), "url": f"{self.u.api}/labels/{quote(label.name, safe='')}",
                "name": label.name, "color": label.color, "default": label.default,
                "description": label.description}

    def reaction_rollup(self, url: str, reactions: list[Reaction]) -> dict[str, Any]:
        counts = {kind: sum(r.content == kind for r in reactions) for kind in REACTIONS}
        return {"url": url, "total_count": len(reactions), **counts}

    def reaction(self, reaction: Reaction) -> dict[str, Any]:
        return {"id": reaction.id, "node_id": node_id("REA", reaction.id), "user": self.user(reaction.user),
                "content": reaction.content, "created_at": reaction.created_at}

    def comment(self, c: Comment) -> dict[str, Any]:
        url = f"{self.u.api}/issues/comments/{c.id}"
        return {
            "id": c.id, "node_id": node_id("IC", c.id), "url": url,
            "html_url": f"{self.u.html}/pull/{c.issue_number}#issuecomment-{c.id}",
            "issue_url": f"{self.u.api}/issues/{c.issue_number}", "body": c.body, "user": self.user(c.user),
            "created_at": c.created_at, "updated_at": c.updated_at, "author_association": "CONTRIBUTOR",
            "performed_via_github_app": self.app(c.app_id) if c.via_app else None,
            "reactions": self.reaction_rollup(f"{url}/reactions", c.reactions),
        }

    def _pull_links(self, pr: PullRequest) -> dict[str, Any]:
        api, html = f"{self.u.api}/pulls/{pr.number}", f"{self.u.html}/pull/{pr.number}"
        issue = f"{self.u.api}/issues/{pr.number}"
        return {
            "url": api, "html_url": html, "diff_url": f"{html}.diff", "patch_url": f"{html}.patch",
            "issue_url": issue, "commits_url": f"{api}/commits", "review_comments_url": f"{api}/comments",
            "review_comment_url": f"{self.u.api}/pulls/comments{{/number}}", "comments_url": f"{issue}/comments",
        }

    def pull(self, pr: PullRequest, head_sha: str, base_sha: str, detail: dict[str, Any] | None,
             comments: int = 0) -> dict[str, Any]:
        """A pull request; `detail` (mergeable, counts…) makes it the full `pull-request` shape."""
        links = self._pull_links(pr)
        statuses_url = f"{self.u.api}/statuses/{head_sha}"
        repo = self.repository()
        owner = self.owner()
        data: dict[str, Any] = {
            **links, "id": pr.id, "node_id": pr.node_id, "number": pr.number, "state": pr.state,
            "locked": pr.locked, "title": pr.title, "user": self.user(pr.user), "body": pr.body,
            "labels": [self.label(label) for label in pr.labels],
            "milestone": None, "active_lock_reason": None, "created_at": pr.created_at,
            "updated_at": pr.updated_at, "closed_at": pr.closed_at, "merged_at": pr.merged_at,
            "merge_commit_sha": pr.merge_commit_sha, "assignee": None, "assignees": [],
            "requested_reviewers": [], "requested_teams": [], "statuses_url": statuses_url,
            "head": self._head(pr, head_sha, owner, repo),
            "base": {"label": f"{self.u.settings.owner}:{pr.base_ref}", "ref": pr.base_ref, "sha": base_sha,
                     "user": owner, "repo": repo},
            "_links": {
                "self": {"href": links["url"]}, "html": {"href": links["html_url"]},
                "issue": {"href": links["issue_url"]}, "comments": {"href": links["comments_url"]},
                "review_comments": {"href": links["review_comments_url"]},
                "review_comment": {"href": links["review_comment_url"]},
                "commits": {"href": links["commits_url"]}, "statuses": {"href": statuses_url},
            },
            "author_association": "CONTRIBUTOR", "auto_merge": pr.auto_merge, "draft": pr.draft,
        }
        if detail is not None:
            data.update(detail)
            data.update({"merged": pr.merged_at is not None, "merged_by": self.user(pr.merged_by),
                         "comments": comments, "review_comments": 0,
                         "maintainer_can_modify": pr.maintainer_can_modify})
        return data

    def _head(self, pr: PullRequest, sha: str, owner: dict[str, Any], repo: dict[str, Any]) -> dict[str, Any]:
        if not pr.head_repo:
            return {"label": f"{self.u.settings.owner}:{pr.head_ref}", "ref": pr.head_ref, "sha": sha,
                    "user": owner, "repo": repo}
        fork_owner = pr.head_owner or ""
        user = self.user(User(fork_owner, 200000 + sum(map(ord, fork_owner))))
        assert user is not None
        return {"label": f"{fork_owner}:{pr.head_ref}", "ref": pr.head_ref, "sha": sha, "user": user,
                "repo": self.fork(pr.head_repo, user)}

    def fork(self, full_name: str, owner: dict[str, Any]) -> dict[str, Any]:
        """Another user's fork of this repository, as a pull request's `head.repo` shows it."""
        base = self.u.settings.full_name

        def moved(value: Any) -> Any:
            return value.replace(f"/{base}", f"/{full_name}").replace(f":{base}", f":{full_name}") \
                if isinstance(value, str) else value

        repo = {key: moved(value) for key, value in self.repository().items()}
        fork_id = self.u.settings.id + 1 + sum(map(ord, full_name))
        repo.update(id=fork_id, node_id=node_id("R", fork_id), name=full_name.partition("/")[2],
                    full_name=full_name, owner=owner, fork=True)
        return repo

    def issue(self, item: PullRequest | Issue, comments: int) -> dict[str, Any]:
        """A pull request seen through the Issues API (PyGithub reads labels there), or a plain issue."""
        issue = f"{self.u.api}/issues/{item.number}"
        pull = isinstance(item, PullRequest)
        data: dict[str, Any] = {
            "id": item.id, "node_id": node_id("I", item.id), "url": issue, "repository_url": self.u.api,
            "labels_url": f"{issue}/labels{{/name}}", "comments_url": f"{issue}/comments",
            "events_url": f"{issue}/events",
            "html_url": f"{self.u.html}/{'pull' if pull else 'issues'}/{item.number}", "number": item.number,
            "state": item.state, "state_reason": None if pull else item.state_reason, "title": item.title,
            "body": item.body, "user": self.user(item.user), "labels": [self.label(label) for label in item.labels],
            "assignee": None, "assignees": [], "milestone": None, "locked": item.locked,
            "active_lock_reason": None, "comments": comments, "closed_at": item.closed_at,
            "created_at": item.created_at, "updated_at": item.updated_at, "closed_by": None,
            "author_association": "CONTRIBUTOR", "timeline_url": f"{issue}/timeline",
            "reactions": self.reaction_rollup(f"{issue}/reactions", []),
            "performed_via_github_app": self.app(item.app_id) if not pull and item.via_app else None,
        }
        if isinstance(item, PullRequest):
            links = self._pull_links(item)
            data["draft"] = item.draft
            data["pull_request"] = {"url": links["url"], "html_url": links["html_url"], "diff_url": links["diff_url"],
                                    "patch_url": links["patch_url"], "merged_at": item.merged_at}
        return data

    # statuses and checks -----------------------------------------------------------------

    def status(self, s: Status) -> dict[str, Any]:
        return {"url": f"{self.u.api}/statuses/{s.sha}", "avatar_url": f"{self.u.base}/avatars/u/{s.creator.id}",
                "id": s.id, "node_id": node_id("SC", s.id), "state": s.state, "description": s.description,
                "target_url": s.target_url, "context": s.context, "created_at": s.created_at,
                "updated_at": s.updated_at, "creator": self.user(s.creator)}

    def check_run(self, run: CheckRun, pulls: list[dict[str, Any]]) -> dict[str, Any]:
        out = run.output
        return {
            "id": run.id, "node_id": node_id("CR", run.id), "head_sha": run.head_sha, "external_id": run.external_id,
            "url": f"{self.u.api}/check-runs/{run.id}", "html_url": f"{self.u.html}/runs/{run.id}",
            "details_url": run.details_url or f"{self.u.html}/runs/{run.id}", "status": run.status,
            "conclusion": run.conclusion, "started_at": run.started_at, "completed_at": run.completed_at,
            "output": {"title": out.get("title"), "summary": out.get("summary"), "text": out.get("text"),
                       "annotations_count": len(run.annotations),
                       "annotations_url": f"{self.u.api}/check-runs/{run.id}/annotations"},
            "name": run.name, "check_suite": {"id": run.suite_id}, "app": self.app(run.app_id),
            "pull_requests": pulls,
        }

    @staticmethod
    def check_suite_node_id(suite: CheckSuite) -> str:
        return node_id("CS", suite.id)

    def pull_minimal(self, pr: PullRequest, head_sha: str, base_sha: str) -> dict[str, Any]:
        repo = {"id": self.u.settings.id, "url": self.u.api, "name": self.u.settings.name}
        return {"id": pr.id, "number": pr.number, "url": f"{self.u.api}/pulls/{pr.number}",
                "head": {"ref": pr.head_ref, "sha": head_sha, "repo": repo},
                "base": {"ref": pr.base_ref, "sha": base_sha, "repo": repo}}

    # git data ------------------------------------------------------------------------------

    @staticmethod
    def person(p: Person) -> dict[str, Any]:
        return {"name": p.name, "email": p.email, "date": p.date}

    def verification(self, sha: str) -> dict[str, Any]:
        """GitHub signs the commits it makes itself (API commits without author/committer, merges);
        the sandbox records which those are but holds no key, so `signature` stays null."""
        signed_at = self.signed.get(sha)
        if signed_at is not None:
            return {"verified": True, "reason": "valid", "signature": None, "payload": None, "verified_at": signed_at}
        return {"verified": False, "reason": "unsigned", "signature": None, "payload": None, "verified_at": None}

    def git_commit(self, c: CommitInfo) -> dict[str, Any]:
        return {
            "sha": c.sha, "node_id": node_id("C", int(c.sha[:7], 16)), "url": f"{self.u.api}/git/commits/{c.sha}",
            "html_url": f"{self.u.html}/commit/{c.sha}", "author": self.person(c.author),
            "committer": self.person(c.committer), "message": c.message,
            "tree": {"sha": c.tree, "url": f"{self.u.api}/git/trees/{c.tree}"},
            "parents": [{"sha": p, "url": f"{self.u.api}/git/commits/{p}", "html_url": f"{self.u.html}/commit/{p}"}
                        for p in c.parents],
            "verification": self.verification(c.sha),
        }

    def commit(self, c: CommitInfo, files: tuple[FileChange, ...] | None, login_of: dict[str, User]) -> dict[str, Any]:
        """The REST `commit` (repos/get-commit, compare, pulls/list-commits)."""
        data: dict[str, Any] = {
            "sha": c.sha, "node_id": node_id("C", int(c.sha[:7], 16)), "url": f"{self.u.api}/commits/{c.sha}",
            "html_url": f"{self.u.html}/commit/{c.sha}", "comments_url": f"{self.u.api}/commits/{c.sha}/comments",
            "commit": {
                "url": f"{self.u.api}/git/commits/{c.sha}", "author": self.person(c.author),
                "committer": self.person(c.committer), "message": c.message, "comment_count": 0,
                "tree": {"sha": c.tree, "url": f"{self.u.api}/git/trees/{c.tree}"},
                "verification": self.verification(c.sha),
            },
            "author": self.user(login_of.get(c.author.email)), "committer": self.user(login_of.get(c.committer.email)),
            "parents": [{"sha": p, "url": f"{self.u.api}/commits/{p}", "html_url": f"{self.u.html}/commit/{p}"}
                        for p in c.parents],
        }
        if files is not None:
            adds, dels = sum(f.additions for f in files), sum(f.deletions for f in files)
            data["stats"] = {"additions": adds, "deletions": dels, "total": adds + dels}
            data["files"] = [self.diff_entry(f, c.sha) for f in files]
        return data

    def diff_entry(self, f: FileChange, ref: str) -> dict[str, Any]:
        entry: dict[str, Any] = {
            "sha": f.sha, "filename": f.filename, "status": f.status, "additions": f.additions,
            "deletions": f.deletions, "changes": f.additions + f.deletions,
            "blob_url": f"{self.u.html}/blob/{ref}/{f.filename}", "raw_url": f"{self.u.html}/raw/{ref}/{f.filename}",
            "contents_url": f"{self.u.api}/contents/{f.filename}?ref={ref}",
        }
        if f.patch is not None:
            entry["patch"] = f.patch
        if f.previous_filename is not None:
            entry["previous_filename"] = f.previous_filename
        return entry

    def tree_entry(self, e: TreeEntry) -> dict[str, Any]:
        kind = "blobs" if e.type == "blob" else "trees" if e.type == "tree" else "commits"
        entry: dict[str, Any] = {"path": e.path, "mode": e.mode, "type": e.type, "sha": e.sha}
        if e.size is not None:
            entry["size"] = e.size
        if e.type != "commit":
            entry["url"] = f"{self.u.api}/git/{kind}/{e.sha}"
        return entry

    def tree(self, sha: str, entries: list[TreeEntry]) -> dict[str, Any]:
        return {"sha": sha, "url": f"{self.u.api}/git/trees/{sha}", "truncated": False,
                "tree": [self.tree_entry(e) for e in entries]}

    def blob(self, sha: str, data: bytes) -> dict[str, Any]:
        encoded = base64.encodebytes(data).decode()
        return {"sha": sha, "node_id": node_id("B", int(sha[:7], 16)), "url": f"{self.u.api}/git/blobs/{sha}",
                "size": len(data), "content": encoded, "encoding": "base64"}

    def ref(self, name: str, sha: str, kind: str = "commit") -> dict[str, Any]:
        return {"ref": name, "node_id": node_id("REF", abs(hash(name)) % 10**9),
                "url": f"{self.u.api}/git/{name}",
                "object": {"type": kind, "sha": sha, "url": f"{self.u.api}/git/{kind}s/{sha}"}}

    def content(self, path: str, entry: TreeEntry, ref: str, data: bytes | None) -> dict[str, Any]:
        """A contents entry; `data` given makes it the full file answer (content + encoding)."""
        kind = {"blob": "file", "tree": "dir", "commit": "submodule"}[entry.type]
        if entry.mode == "120000":
            kind = "symlink"
        url = f"{self.u.api}/contents/{path}?ref={ref}"
        git_url = f"{self.u.api}/git/{'trees' if entry.type == 'tree' else 'blobs'}/{entry.sha}"
        html = f"{self.u.html}/{'tree' if entry.type == 'tree' else 'blob'}/{ref}/{path}"
        item: dict[str, Any] = {
            "type": kind, "size": entry.size or 0, "name": path.rsplit("/", 1)[-1], "path": path,
            "sha": entry.sha, "url": url, "git_url": git_url, "html_url": html,
            "download_url": f"{self.u.html}/raw/{ref}/{path}" if kind == "file" else None,
            "_links": {"self": url, "git": git_url, "html": html},
        }
        if data is not None:
            item["content"] = base64.encodebytes(data).decode()
            item["encoding"] = "base64"
        return item
