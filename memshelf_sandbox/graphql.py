"""A minimal `POST /graphql`: the auto-merge mutations, the only GraphQL PyGithub needs from us.

PyGithub 2.x sends `mutation Mutation($input: EnablePullRequestAutoMergeInput!) {
enablePullRequestAutoMerge(input: $input) { <fields> } }` with the pull request's `node_id`
(see `PullRequest.enable_automerge`). GraphQL answers HTTP 200 with an `errors` list when a
mutation is refused; the refusals here carry GitHub's messages.
"""

from __future__ import annotations

import re
from typing import Any

from .repo import Repository
from .state import Principal, PullRequest, User

MUTATION = re.compile(r"\b(enablePullRequestAutoMerge|disablePullRequestAutoMerge)\s*\(")
METHODS = {"MERGE": "merge", "SQUASH": "squash", "REBASE": "rebase"}


def _error(mutation: str, kind: str, message: str) -> dict[str, Any]:
    return {"data": {mutation: None},
            "errors": [{"type": kind, "path": [mutation], "locations": [{"line": 1, "column": 1}],
                        "message": message}]}


def _actor(repo: Repository, user: User) -> dict[str, Any]:
    return {"avatarUrl": f"{repo.urls.base}/avatars/u/{user.id}?v=4", "login": user.login,
            "resourcePath": f"/{user.login}", "url": f"{repo.urls.base}/{user.login}"}


def execute(repo: Repository, principal: Principal, request: dict[str, Any]) -> dict[str, Any]:
    """Run one GraphQL request; the JSON body of the 200 answer."""
    query = request.get("query") or ""
    match = MUTATION.search(query)
    if not match or not query.lstrip().startswith("mutation"):
        return {"errors": [{"message": "The embedded GitHub sandbox only implements the auto-merge mutations",
                            "locations": [{"line": 1, "column": 1}]}]}
    mutation = match.group(1)
    data = (request.get("variables") or {}).get("input") or {}
    with repo.state.lock:
        pr = next((p for p in repo.state.pulls.values() if p.node_id == data.get("pullRequestId")), None)
        if pr is None:
            return {"data": {mutation: None},
                    "errors": [{"type": "NOT_FOUND", "path": ["input", "pullRequestId"],
                                "message": f"Could not resolve to a node with the global id of "
                                           f"'{data.get('pullRequestId')}'"}]}
        if not principal.allows("write"):
            return _error(mutation, "FORBIDDEN", "Resource not accessible by integration" if principal.integration
                          else "Resource not accessible by personal access token")
        if mutation == "disablePullRequestAutoMerge":
            pr.auto_merge = None
            return {"data": {mutation: {"actor": _actor(repo, principal.user),
                                        "clientMutationId": data.get("clientMutationId")}}}
        refusal = _refusal(repo, pr, data)
        if refusal:
            return _error(mutation, "UNPROCESSABLE", refusal)
        pr.auto_merge = {
            "enabled_by": repo.views.user(principal.user), "merge_method": METHODS[data.get("mergeMethod", "MERGE")],
            "commit_title": data.get("commitHeadline") or "", "commit_message": data.get("commitBody") or "",
        }
    return {"data": {mutation: {"actor": _actor(repo, principal.user),
                                "clientMutationId": data.get("clientMutationId")}}}


def _refusal(repo: Repository, pr: PullRequest, data: dict[str, Any]) -> str | None:
    if not repo.state.repo.allow_auto_merge:
        return "Auto merge is not allowed for this repository"
    if pr.state != "open":
        return "Pull request is closed"
    if data.get("mergeMethod", "MERGE") not in METHODS:
        return f"Invalid merge method {data.get('mergeMethod')}"
    expected = data.get("expectedHeadOid")
    if expected and expected != repo.head_sha(pr):
        return "Head sha didn't match expected head sha"
    state = repo.mergeability(pr).state
    if state in ("clean", "unstable", "dirty", "draft"):
        # GitHub arms auto-merge only while something (required checks, reviews) still blocks it
        return f"Pull request is in {state} status"
    return None
