"""Issues API: pull requests seen as issues (comments, reactions, labels) and plain issues (the
bot's shelf dashboard: listed by label, state and creator, opened, edited, closed, reopened)."""

from __future__ import annotations

from .api import ApiError, Context, R, Reply, not_found, route, validation_failed
from .state import Comment, Issue, Label, PullRequest, Reaction, now

MAX_BODY = 65536  # GitHub's limit on a comment body, in characters


def _issue(ctx: Context) -> PullRequest | Issue:
    pr = ctx.state.issue(int(ctx.params["issue_number"]))
    if pr is None:
        raise not_found()
    return pr


def _comment(ctx: Context) -> Comment:
    comment = ctx.state.comments.get(int(ctx.params["comment_id"]))
    if comment is None:
        raise not_found()
    return comment


def _check_body(body: str | None, resource: str = "IssueComment") -> None:
    if body is not None and len(body) > MAX_BODY:
        raise validation_failed({"resource": resource, "code": "unprocessable", "field": "data",
                                 "message": f"Body is too long (maximum is {MAX_BODY} characters)"})


@route(f"GET {R}/issues")
def list_issues(ctx: Context) -> Reply:
    """Open issues by default, pull requests among them (as GitHub lists them); `labels` (all of
    them, comma-separated), `state`, `creator`, `sort` and `direction` filter and order them."""
    state, creator = ctx.query.get("state", "open"), ctx.query.get("creator")
    wanted = {name.strip().lower() for name in (ctx.query.get("labels") or "").split(",") if name.strip()}
    with ctx.state.lock:
        items: list[PullRequest | Issue] = [*ctx.state.pulls.values(), *ctx.state.issues.values()]
        items = [i for i in items if (state == "all" or i.state == state)
                 and wanted <= {label.name.lower() for label in i.labels}
                 and (creator is None or i.user.login.lower() == creator.lower())]
    sort = ctx.query.get("sort", "created")
    descending = ctx.query.get("direction", "desc") == "desc"
    items.sort(key=lambda i: (i.updated_at if sort == "updated" else i.created_at, i.number), reverse=descending)
    page, headers = ctx.page(items)
    return Reply(200, [ctx.views.issue(i, ctx.repo.comment_count(i.number)) for i in page], headers)


@route(f"POST {R}/issues", needs="read")
def create_issue(ctx: Context) -> Reply:
    body = ctx.body
    _check_body(body.get("body"), "Issue")
    principal = ctx.principal
    names = [item if isinstance(item, str) else item.get("name", "") for item in body.get("labels") or ()]
    with ctx.state.lock:
        labels = [ctx.state.ensure_label(name) for name in dict.fromkeys(names) if name]
        number = ctx.state.next_number()
        issue = Issue(number, ctx.state.next_id(), str(body["title"]), body.get("body"), ctx.actor(), labels=labels,
                      via_app=bool(principal and principal.integration), app_id=principal.app_id if principal else None)
        ctx.state.issues[number] = issue
    data = ctx.views.issue(issue, 0)
    return Reply(201, data, {"Location": data["url"]})


@route(f"PATCH {R}/issues/{{issue_number}}", needs="triage")
def update_issue(ctx: Context) -> Reply:
    """Title, body, state and labels of an issue; a pull request's state changes through the Pulls
    API only (the sandbox keeps its merge and branch bookkeeping there)."""
    body = ctx.body or {}
    with ctx.state.lock:
        item = _issue(ctx)
        if "body" in body:
            _check_body(body["body"], "Issue")
        if "state" in body and isinstance(item, PullRequest):
            raise ApiError(422, "The sandbox changes a pull request's state through the Pulls API only")
        if "title" in body and body["title"] is not None:
            item.title = str(body["title"])
        if "body" in body:
            item.body = body["body"]
        if "labels" in body:
            names = [n if isinstance(n, str) else n.get("name", "") for n in body["labels"] or ()]
            item.labels = [ctx.state.ensure_label(name) for name in dict.fromkeys(names) if name]
        if isinstance(item, Issue) and body.get("state") in ("open", "closed") and body["state"] != item.state:
            item.state = body["state"]
            item.closed_at = now() if item.state == "closed" else None
            item.state_reason = body.get("state_reason") or ("completed" if item.state == "closed" else "reopened")
        item.updated_at = now()
    return Reply(200, ctx.views.issue(item, ctx.repo.comment_count(item.number)))


@route(f"GET {R}/issues/{{issue_number}}")
def get_issue(ctx: Context) -> Reply:
    pr = _issue(ctx)
    return Reply(200, ctx.views.issue(pr, ctx.repo.comment_count(pr.number)))


@route(f"GET {R}/issues/{{issue_number}}/comments")
def list_comments(ctx: Context) -> Reply:
    pr = _issue(ctx)
    since = ctx.query.get("since")
    with ctx.state.lock:
        comments = [c for c in ctx.state.comments.values() if c.issue_number == pr.number
                    and (since is None or c.updated_at >= since)]
    comments.sort(key=lambda c: c.id)
    page, headers = ctx.page(comments)
    return Reply(200, [ctx.views.comment(c) for c in page], headers)


@route(f"POST {R}/issues/{{issue_number}}/comments", needs="read")
def create_comment(ctx: Context) -> Reply:
    pr = _issue(ctx)
    _check_body(ctx.body["body"])
    principal = ctx.principal
    with ctx.state.lock:
        comment = Comment(ctx.state.next_id(), pr.number, ctx.body["body"], ctx.actor(),
                          via_app=bool(principal and principal.integration),
                          app_id=principal.app_id if principal else None)
        ctx.state.comments[comment.id] = comment
        pr.updated_at = now()
    data = ctx.views.comment(comment)
    if ctx.repo.events is not None:
        ctx.repo.events.issue_comment(comment, comment.user)
    return Reply(201, data, {"Location": data["url"]})


@route(f"GET {R}/issues/comments/{{comment_id}}")
def get_comment(ctx: Context) -> Reply:
    return Reply(200, ctx.views.comment(_comment(ctx)))


def _own_or_write(ctx: Context, comment: Comment) -> None:
    """Anyone may edit their own comment; others' need write access."""
    principal = ctx.principal
    if principal is None:
        raise ApiError(401, "Requires authentication")
    if principal.user != comment.user and not principal.allows("write"):
        raise ApiError(403, "Resource not accessible by integration" if principal.integration
                       else "Resource not accessible by personal access token")


@route(f"PATCH {R}/issues/comments/{{comment_id}}", needs="read")
def update_comment(ctx: Context) -> Reply:
    with ctx.state.lock:
        comment = _comment(ctx)
        _own_or_write(ctx, comment)
        _check_body(ctx.body["body"])
        comment.body, comment.updated_at = ctx.body["body"], now()
    return Reply(200, ctx.views.comment(comment))


@route(f"DELETE {R}/issues/comments/{{comment_id}}", needs="read")
def delete_comment(ctx: Context) -> Reply:
    with ctx.state.lock:
        comment = _comment(ctx)
        _own_or_write(ctx, comment)
        del ctx.state.comments[comment.id]
    return Reply(204)


@route(f"GET {R}/issues/comments/{{comment_id}}/reactions")
def list_reactions(ctx: Context) -> Reply:
    reactions = list(_comment(ctx).reactions)
    if ctx.query.get("content"):
        reactions = [r for r in reactions if r.content == ctx.query["content"]]
    page, headers = ctx.page(reactions)
    return Reply(200, [ctx.views.reaction(r) for r in page], headers)


@route(f"POST {R}/issues/comments/{{comment_id}}/reactions", needs="read")
def create_reaction(ctx: Context) -> Reply:
    user = ctx.actor()
    with ctx.state.lock:
        comment = _comment(ctx)
        for reaction in comment.reactions:
            if reaction.user == user and reaction.content == ctx.body["content"]:
                return Reply(200, ctx.views.reaction(reaction))  # the same reaction again: 200, not 201
        reaction = Reaction(ctx.state.next_id(), ctx.body["content"], user)
        comment.reactions.append(reaction)
    return Reply(201, ctx.views.reaction(reaction))


# labels ---------------------------------------------------------------------------------


@route(f"GET {R}/labels")
def list_labels(ctx: Context) -> Reply:
    with ctx.state.lock:
        labels = sorted(ctx.state.labels.values(), key=lambda label: label.name.lower())
    page, headers = ctx.page(labels)
    return Reply(200, [ctx.views.label(label) for label in page], headers)


@route(f"POST {R}/labels", needs="write")
def create_label(ctx: Context) -> Reply:
    name = ctx.body["name"]
    with ctx.state.lock:
        if ctx.state.label(name) is not None:
            raise validation_failed({"resource": "Label", "code": "already_exists", "field": "name"})
        label = Label(ctx.state.next_id(), name, ctx.body.get("color", "ededed").lstrip("#").lower(),
                      ctx.body.get("description"))
        ctx.state.labels[name.lower()] = label
    data = ctx.views.label(label)
    return Reply(201, data, {"Location": data["url"]})


@route(f"GET {R}/labels/{{name}}")
def get_label(ctx: Context) -> Reply:
    label = ctx.state.label(ctx.params["name"])
    if label is None:
        raise not_found()
    return Reply(200, ctx.views.label(label))


@route(f"GET {R}/issues/{{issue_number}}/labels")
def list_issue_labels(ctx: Context) -> Reply:
    page, headers = ctx.page(list(_issue(ctx).labels))
    return Reply(200, [ctx.views.label(label) for label in page], headers)


@route(f"POST {R}/issues/{{issue_number}}/labels", needs="triage")
def add_labels(ctx: Context) -> Reply:
    body = ctx.body
    if isinstance(body, dict):
        body = body.get("labels", [])
    names = [item if isinstance(item, str) else item["name"] for item in body]
    with ctx.state.lock:
        pr = _issue(ctx)
        for name in names:
            label = ctx.state.ensure_label(name)
            if label not in pr.labels:
                pr.labels.append(label)
        pr.updated_at = now()
    return Reply(200, [ctx.views.label(label) for label in pr.labels])


@route(f"DELETE {R}/issues/{{issue_number}}/labels/{{name}}", needs="triage")
def remove_label(ctx: Context) -> Reply:
    with ctx.state.lock:
        pr = _issue(ctx)
        label = next((lab for lab in pr.labels if lab.name.lower() == ctx.params["name"].lower()), None)
        if label is None:
            raise ApiError(404, "Label does not exist")
        pr.labels.remove(label)
        pr.updated_at = now()
    return Reply(200, [ctx.views.label(lab) for lab in pr.labels])
