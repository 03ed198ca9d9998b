"""The pull request of an agent branch on GitHub: found or opened (one per branch, also when two
runs race), labelled, given the verdict as a commit status, and optionally set to auto-merge.

Opening is list-by-head, then create; GitHub answers a create that lost a race with 422 "A pull
request already exists for owner:branch", after which the other run's PR is listed again and
used. Labels are created (with a colour and a description) before they are first applied.
Auto-merge is GitHub's own (GraphQL `enablePullRequestAutoMerge`, squash, pinned to the head
commit that was validated); a repository that does not allow it is reported, never an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from github import GithubException

from .github import GitHub

STATUS_CONTEXT = "memshelf-bot/validate"
EPISODE_LABEL = "shelf:episode"
INVALID_LABEL = "shelf:invalid"
LABELS = {  # name -> (colour, description)
    EPISODE_LABEL: ("5319e7", "Episodes for the memory shelf (memshelf-bot)"),
    INVALID_LABEL: ("d73a4a", "memshelf-bot found errors in these episodes"),
}
OPEN_ATTEMPTS = 4
STATUS_STATES = {"valid": "success", "violations": "failure", "config-error": "error"}
MAX_STATUS_DESCRIPTION = 140  # GitHub cuts a status description there


class CannotOpen(RuntimeError):
    """GitHub refuses to open the pull request (e.g. Actions may not create pull requests)."""


def _messages(exc: GithubException) -> list[str]:
    data = exc.data if isinstance(exc.data, dict) else {}
    found = [str(data.get("message", ""))]
    found += [str(e.get("message", "")) for e in data.get("errors") or () if isinstance(e, dict)]
    return [m for m in found if m]


def open_pulls(client: GitHub, branch: str) -> list[Any]:
    """The open pull requests whose head is `branch` of this repository, oldest first."""
    owner = client.full_name.split("/", 1)[0]
    pulls = client.call(f"list the pull requests of {branch}", lambda: list(
        client.repo.get_pulls(state="open", head=f"{owner}:{branch}", sort="created", direction="asc")))
    return sorted(pulls, key=lambda p: p.number)


def _pick(pulls: list[Any], base: str) -> Any:
    """The one to keep up to date: the oldest against `base`, else the oldest."""
    return next((p for p in pulls if p.base.ref == base), pulls[0])


def find_or_open(client: GitHub, branch: str, base: str, title: str, body: str) -> tuple[Any, bool]:
    """The branch's open pull request and whether this call opened it."""
    for attempt in range(OPEN_ATTEMPTS):
        found = open_pulls(client, branch)
        if found:
            return _pick(found, base), False
        try:
            pull = client.call(f"open a pull request for {branch}", client.repo.create_pull, title=title,
                               body=body, base=base, head=branch)
            return pull, True
        except GithubException as exc:
            messages = _messages(exc)
            if exc.status == 422 and any("already exists" in m for m in messages):
                client.sleep(client.rng.uniform(0.05, 0.25) * (attempt + 1))  # the other run's PR: list again
                continue
            if exc.status in (403, 422):
                raise CannotOpen("; ".join(messages) or f"GitHub answered {exc.status}") from exc
            raise
    raise CannotOpen(f"GitHub keeps saying a pull request for {branch} exists, but does not list it")


# labels ------------------------------------------------------------------------------------


def ensure_label(client: GitHub, name: str) -> None:
    """Create the label with its colour and description unless the repository has it."""
    try:
        client.call(f"read the label {name}", client.repo.get_label, name)
        return
    except GithubException as exc:
        if exc.status != 404:
            raise
    colour, description = LABELS[name]
    try:
        client.write(f"create the label {name}", client.repo.create_label, name, colour, description)
    except GithubException as exc:
        if exc.status != 422:  # created meanwhile by a concurrent run
            raise


def sync_labels(client: GitHub, pull: Any, invalid: bool) -> tuple[list[str], list[str]]:
    """`shelf:episode` always, `shelf:invalid` exactly while the verdict fails; (added, removed)."""
    have = {label.name for label in pull.labels}
    wanted = [EPISODE_LABEL] + ([INVALID_LABEL] if invalid else [])
    added = [name for name in wanted if name not in have]
    for name in added:
        ensure_label(client, name)
    if added:
        client.write(f"label #{pull.number}", pull.add_to_labels, *added)
    removed = [INVALID_LABEL] if not invalid and INVALID_LABEL in have else []
    for name in removed:
        try:
            client.write(f"unlabel #{pull.number}", pull.remove_from_labels, name)
        except GithubException as exc:
            if exc.status != 404:  # removed meanwhile
                raise
    return added, removed


# the commit status ---------------------------------------------------------------------------


def status_description(verdict: str, counts: dict[str, int], episodes: int) -> str:
    if verdict == "config-error":
        text = "configuration error: shelf.yml or .memshelf-bot.yml is missing or invalid"
    else:
        text = (f"{verdict}: {counts['error']} error(s), {counts['warning']} warning(s) in {episodes} "
                f"episode(s)")
    return text[:MAX_STATUS_DESCRIPTION]


def publish_status(client: GitHub, sha: str, verdict: str, description: str, target_url: str | None) -> bool:
    """The verdict as the `memshelf-bot/validate` status of `sha`; False when the token may not."""
    payload: dict[str, Any] = {"state": STATUS_STATES[verdict], "context": STATUS_CONTEXT,
                               "description": description}
    if target_url:
        payload["target_url"] = target_url
    requester = client.gh.requester
    done = client.write(f"publish the {STATUS_CONTEXT} status", requester.requestJsonAndCheck, "POST",
                        f"{client.repo.url}/statuses/{sha}", input=payload)
    return done is not None


# auto-merge ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AutoMerge:
    """What became of the pull request's auto-merge in this run."""

    action: str  # off | enabled | merged | not-allowed | conflict | moved | refused | disabled
    detail: str = ""
    merge_sha: str = ""

    def remark(self, base: str) -> str | None:
        """The line the sticky comment carries about it (None: nothing worth saying)."""
        return {
            "enabled": f"🔀 Auto-merge is on: GitHub squash-merges this pull request into `{base}` once its "
                       "required checks pass.",
            "merged": f"🔀 Auto-merge: nothing else was required, so the bot squash-merged this pull request into "
                      f"`{base}`.",
            "not-allowed": "⚠️ `auto_merge` is on, but this repository does not allow auto-merge: enable *Allow "
                           "auto-merge* in Settings → General, or turn `auto_merge` off. The pull request waits "
                           "for a human.",
            "conflict": f"⚠️ Auto-merge waits: this branch conflicts with `{base}`. Someone with write access can "
                        "comment `/shelf resolve` to settle it.",
            "moved": "Auto-merge was not enabled: the branch moved after it was validated; the run for the new "
                     "push decides.",
            "refused": f"⚠️ GitHub refused to enable auto-merge: {self.detail}",
            "disabled": "Auto-merge was turned off: the episodes no longer pass.",
        }.get(self.action)


def _graphql_messages(exc: GithubException) -> str:
    return "; ".join(_messages(exc)) or f"GitHub answered {exc.status}"


def settle_auto_merge(client: GitHub, pull: Any, head_sha: str, *, wanted: bool, valid: bool) -> AutoMerge:
    """Arm GitHub's auto-merge (squash, for `head_sha` only) when `wanted` and `valid`. When
    GitHub says nothing required is left to wait for (a "clean" or "unstable" pull request), merge
    now instead, as `gh pr merge --auto` does. An armed auto-merge is disarmed when the episodes
    stop passing."""
    armed = (pull.raw_data or {}).get("auto_merge") is not None
    if not valid:
        if armed:
            client.call("disable auto-merge", pull.disable_automerge)
            return AutoMerge("disabled")
        return AutoMerge("off")
    if not wanted:
        return AutoMerge("off")
    if armed:
        return AutoMerge("enabled")
    try:
        client.call("enable auto-merge", pull.enable_automerge, merge_method="SQUASH", expected_head_oid=head_sha)
        return AutoMerge("enabled")
    except GithubException as exc:
        text = _graphql_messages(exc)
    lowered = text.lower()
    if "not allowed" in lowered:
        return AutoMerge("not-allowed", text)
    if "expected head sha" in lowered:
        return AutoMerge("moved", text)
    if "dirty status" in lowered or "conflict" in lowered:
        return AutoMerge("conflict", text)
    if "clean status" in lowered or "unstable status" in lowered:
        try:
            merged = client.call(f"merge #{pull.number}", pull.merge, merge_method="squash", sha=head_sha)
        except GithubException as exc:
            return AutoMerge("refused", _graphql_messages(exc))
        return AutoMerge("merged", merge_sha=merged.sha)
    return AutoMerge("refused", text)
