"""Issues API as pull requests use it: the issue, its comments, reactions and labels."""

from __future__ import annotations

from .api import ApiError, Context, R, Reply, not_found, route, validation_failed
from .state import Comment, Label, PullRequest, Reaction, now

MAX_BODY = 65536  # GitHub's limit on a comment body, in characters


def _issue(ctx: Context) -> PullRequest:
    pr = ctx.state.pull(int(ctx.params["issue_number"]))
    if pr is None:
        raise not_found()
    return pr


def _comment(ctx: Context) -> Comment:
    comment = ctx.state.comments.get(int(ctx.params["comment_id"]))
    if comment is None:
        raise not_found()
    return comment


def _check_body(body: str) -> None:
    if len(body) > MAX_BODY:
        raise validation_failed({"resource": "IssueComment", "code": "unprocessable", "field": "data",
                                 "message": f"Body is too long (maximum is {MAX_BODY} characters)"})


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
