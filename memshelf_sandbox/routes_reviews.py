"""Pull-request reviews: create one (with line comments on the diff), list reviews and review
comments. A comment's line must be in the pull request's diff on the side it names, as GitHub
requires ("Line could not be resolved" otherwise); the whole review is refused then.
"""

from __future__ import annotations

import re
from typing import Any

from .api import ApiError, Context, R, Reply, route
from .gitstore import FileChange
from .routes_pulls import _pull
from .state import PullRequest, Review, ReviewComment

EVENTS = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "COMMENT": "COMMENTED"}
SIDES = ("LEFT", "RIGHT")
_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def unprocessable(*errors: str) -> ApiError:
    """GitHub's answer to a review it cannot place: `validation-error-simple`, errors as strings."""
    return ApiError(422, "Unprocessable Entity", list(errors))  # type: ignore[arg-type]


def diff_lines(patch: str) -> list[tuple[str, int, str]]:
    """Each line of a patch after the first hunk header, as (side, line number, hunk so far);
    a context line counts on the RIGHT (GitHub's default side), a hunk header on neither."""
    out: list[tuple[str, int, str]] = []
    old = new = 0
    hunk: list[str] = []
    for text in patch.split("\n"):
        m = _HUNK.match(text)
        if m:
            old, new = int(m.group(1)), int(m.group(2))
            hunk = [text]
            if out:
                out.append(("", 0, "\n".join(hunk)))
            continue
        hunk.append(text)
        if text.startswith("-"):
            out.append(("LEFT", old, "\n".join(hunk)))
            old += 1
        elif text.startswith("+"):
            out.append(("RIGHT", new, "\n".join(hunk)))
            new += 1
        elif not text.startswith("\\"):
            out.append(("RIGHT", new, "\n".join(hunk)))
            old, new = old + 1, new + 1
    return out


def _placed(comment: dict[str, Any], files: dict[str, FileChange]) -> tuple[str, int, int, str]:
    """(side, line, position, diff hunk) of one draft comment, or the 422 GitHub answers."""
    change = files.get(comment["path"])
    if change is None or change.patch is None:
        raise unprocessable("Path could not be resolved")
    lines = diff_lines(change.patch)
    if "line" in comment:
        side = comment.get("side", "RIGHT")
        if side not in SIDES:
            raise unprocessable("Side is not valid")
        for position, (s, number, hunk) in enumerate(lines, start=1):
            if (s, number) == (side, comment["line"]):
                return side, number, position, hunk
        raise unprocessable("Line could not be resolved")
    if "position" in comment and 1 <= comment["position"] <= len(lines):
        side, number, hunk = lines[comment["position"] - 1]
        if side:
            return side, number, comment["position"], hunk
    raise unprocessable("Position could not be resolved" if "position" in comment else "Line could not be resolved")


@route(f"POST {R}/pulls/{{pull_number}}/reviews", needs="write")
def create_review(ctx: Context) -> Reply:
    pr = _pull(ctx)
    body = ctx.body or {}
    head = ctx.repo.head_sha(pr)
    commit = body.get("commit_id") or head
    if ctx.store.resolve_commit(commit) != commit:
        raise unprocessable("Commit could not be resolved")
    event = body.get("event")
    text = body.get("body") or ""
    drafts = body.get("comments") or []
    if event in ("REQUEST_CHANGES", "COMMENT") and not text and not drafts:
        raise unprocessable(f"Review Can not {event.lower().replace('_', ' ')} without a body or comments")
    files = {f.filename: f for f in ctx.repo.pull_files(pr)}
    placed = [_placed(c, files) for c in drafts]
    actor = ctx.actor()
    with ctx.state.lock:
        review = Review(ctx.state.next_id(), pr.number, actor, text, EVENTS.get(event, "PENDING"), commit)
        ctx.state.reviews[review.id] = review
        for draft, (side, line, position, hunk) in zip(drafts, placed, strict=True):
            comment = ReviewComment(ctx.state.next_id(), review.id, pr.number, actor, draft["path"], side, line,
                                    position, hunk, draft["body"], commit)
            ctx.state.review_comments[comment.id] = comment
    return Reply(200, review_json(ctx, pr, review))


@route(f"GET {R}/pulls/{{pull_number}}/reviews")
def list_reviews(ctx: Context) -> Reply:
    pr = _pull(ctx)
    with ctx.state.lock:
        reviews = sorted((r for r in ctx.state.reviews.values() if r.pull_number == pr.number), key=lambda r: r.id)
    page, headers = ctx.page(reviews)
    return Reply(200, [review_json(ctx, pr, r) for r in page], headers)


@route(f"GET {R}/pulls/{{pull_number}}/comments")
def list_review_comments(ctx: Context) -> Reply:
    pr = _pull(ctx)
    with ctx.state.lock:
        found = sorted((c for c in ctx.state.review_comments.values() if c.pull_number == pr.number),
                       key=lambda c: c.id)
    page, headers = ctx.page(found)
    return Reply(200, [comment_json(ctx, pr, c) for c in page], headers)


def review_json(ctx: Context, pr: PullRequest, review: Review) -> dict[str, Any]:
    html = f"{ctx.repo.urls.base}/{ctx.state.repo.full_name}/pull/{pr.number}"
    api = f"{ctx.repo.urls.api}/pulls/{pr.number}"
    data: dict[str, Any] = {
        "id": review.id, "node_id": f"PRR_{review.id}", "user": ctx.views.user(review.user), "body": review.body,
        "state": review.state, "html_url": f"{html}#pullrequestreview-{review.id}", "pull_request_url": api,
        "_links": {"html": {"href": f"{html}#pullrequestreview-{review.id}"}, "pull_request": {"href": api}},
        "commit_id": review.commit_id, "author_association": "CONTRIBUTOR",
    }
    if review.state != "PENDING":
        data["submitted_at"] = review.submitted_at
    return data


def comment_json(ctx: Context, pr: PullRequest, c: ReviewComment) -> dict[str, Any]:
    html = f"{ctx.repo.urls.base}/{ctx.state.repo.full_name}/pull/{pr.number}"
    api = f"{ctx.repo.urls.api}/pulls/{pr.number}"
    url = f"{ctx.repo.urls.api}/pulls/comments/{c.id}"
    return {
        "url": url, "pull_request_review_id": c.review_id, "id": c.id, "node_id": f"PRRC_{c.id}",
        "diff_hunk": c.diff_hunk, "path": c.path, "position": c.position, "original_position": c.position,
        "commit_id": c.commit_id, "original_commit_id": c.commit_id, "user": ctx.views.user(c.user),
        "body": c.body, "created_at": c.created_at, "updated_at": c.created_at,
        "html_url": f"{html}#discussion_r{c.id}", "pull_request_url": api, "author_association": "CONTRIBUTOR",
        "_links": {"self": {"href": url}, "html": {"href": f"{html}#discussion_r{c.id}"},
                   "pull_request": {"href": api}},
        "start_line": None, "original_start_line": None, "start_side": None, "line": c.line,
        "original_line": c.line, "side": c.side, "subject_type": "line",
        "reactions": ctx.views.reaction_rollup(f"{url}/reactions", []),
    }
