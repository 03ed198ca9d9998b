"""The Checks API: check runs (create, update, read, list per ref, annotations, re-request) and
check suites (per ref, one, its runs, re-request). GitHub's limit of 50 annotations a request is
in its description (`maxItems`), so the request validator answers 422 before a handler runs."""

from __future__ import annotations

from typing import Any

from .api import ApiError, Context, R, Reply, not_found, route, validation_failed
from .routes_repo import commit_or_422
from .state import CheckRun, CheckSuite, now
from .webhooks import suite_state


def _pulls(ctx: Context, sha: str) -> list[dict[str, Any]]:
    with ctx.state.lock:
        return [ctx.views.pull_minimal(pr, ctx.repo.head_sha(pr), ctx.repo.base_sha(pr))
                for pr in ctx.state.pulls.values() if pr.state == "open" and ctx.repo.head_sha(pr) == sha]


def _run_json(ctx: Context, run: CheckRun) -> dict[str, Any]:
    return ctx.views.check_run(run, _pulls(ctx, run.head_sha))


def _suite_json(ctx: Context, suite: CheckSuite) -> dict[str, Any]:
    status, conclusion = suite_state(ctx.repo, suite)
    info = ctx.store.commit(suite.head_sha)
    with ctx.state.lock:
        count = sum(run.suite_id == suite.id for run in ctx.state.check_runs.values())
    return {
        "id": suite.id, "node_id": ctx.views.check_suite_node_id(suite), "head_branch": suite.head_branch,
        "head_sha": suite.head_sha, "status": status, "conclusion": conclusion,
        "url": f"{ctx.repo.urls.api}/check-suites/{suite.id}", "before": suite.before, "after": suite.after,
        "pull_requests": _pulls(ctx, suite.head_sha), "app": ctx.views.app(suite.app_id),
        "repository": ctx.views.repository(),
        "created_at": suite.created_at, "updated_at": suite.updated_at,
        "head_commit": {"id": info.sha, "tree_id": info.tree, "message": info.message, "timestamp": info.committer.date,
                        "author": {"name": info.author.name, "email": info.author.email},
                        "committer": {"name": info.committer.name, "email": info.committer.email}},
        "latest_check_runs_count": count, "check_runs_url": f"{ctx.repo.urls.api}/check-suites/{suite.id}/check-runs",
        "rerequestable": True, "runs_rerequestable": True,
    }


def _apply(run: CheckRun, body: dict[str, Any]) -> None:
    output = body.get("output") or {}
    for key in ("name", "details_url", "external_id", "started_at", "completed_at", "status"):
        if key in body:
            setattr(run, key, body[key])
    if body.get("conclusion"):
        run.conclusion = body["conclusion"]
        run.status = "completed"
        run.completed_at = body.get("completed_at") or run.completed_at or now()
    if run.status == "completed" and run.conclusion is None:
        raise ApiError(422, "Invalid request.\n\nNo conclusion was supplied for a completed check run.")
    if output:
        run.output.update({k: v for k, v in output.items() if k in ("title", "summary", "text")})
        run.annotations.extend(output.get("annotations") or [])
    if "actions" in body:
        run.actions = body["actions"]


def _apps_only(ctx: Context) -> None:
    if ctx.principal is not None and not ctx.principal.integration:
        raise ApiError(403, "You must authenticate via a GitHub App.")


def _branch_at(ctx: Context, sha: str) -> str | None:
    return next((ref.removeprefix("refs/heads/") for ref, at in sorted(ctx.store.refs("refs/heads/").items())
                 if at == sha), None)


@route(f"POST {R}/check-runs", needs="write")
def create_check_run(ctx: Context) -> Reply:
    _apps_only(ctx)
    sha = ctx.body["head_sha"]
    if ctx.store.object_type(sha) != "commit":
        raise validation_failed({"resource": "CheckRun", "code": "invalid", "field": "head_sha"})
    app_id = ctx.principal.app_id if ctx.principal else None
    with ctx.state.lock:
        suite = ctx.state.suite_for(sha, app_id, _branch_at(ctx, sha))
        run = CheckRun(ctx.state.next_id(), sha, ctx.body["name"], suite_id=suite.id, app_id=app_id)
        _apply(run, ctx.body)
        suite.rerequested, suite.updated_at = False, now()
        ctx.state.check_runs[run.id] = run
    return Reply(201, _run_json(ctx, run))


def _run(ctx: Context) -> CheckRun:
    run = ctx.state.check_runs.get(int(ctx.params["check_run_id"]))
    if run is None:
        raise not_found()
    return run


@route(f"PATCH {R}/check-runs/{{check_run_id}}", needs="write")
def update_check_run(ctx: Context) -> Reply:
    _apps_only(ctx)
    with ctx.state.lock:
        run = _run(ctx)
        _apply(run, ctx.body)
    return Reply(200, _run_json(ctx, run))


@route(f"GET {R}/check-runs/{{check_run_id}}")
def get_check_run(ctx: Context) -> Reply:
    return Reply(200, _run_json(ctx, _run(ctx)))


@route(f"GET {R}/check-runs/{{check_run_id}}/annotations")
def list_annotations(ctx: Context) -> Reply:
    run = _run(ctx)
    blob = f"{ctx.repo.urls.html}/blob/{run.head_sha}"
    items = [{"path": a["path"], "blob_href": f"{blob}/{a['path']}", "start_line": a["start_line"],
              "end_line": a["end_line"], "start_column": a.get("start_column"), "end_column": a.get("end_column"),
              "annotation_level": a.get("annotation_level"), "title": a.get("title"), "message": a.get("message"),
              "raw_details": a.get("raw_details")} for a in run.annotations]
    page, headers = ctx.page(items)
    return Reply(200, page, headers)


@route(f"POST {R}/check-runs/{{check_run_id}}/rerequest", needs="write")
def rerequest_run(ctx: Context) -> Reply:
    """A user asks again ("Re-run"): the run's App gets `check_run` `rerequested`."""
    run = _run(ctx)
    suite = ctx.state.check_suites.get(run.suite_id)
    if suite is not None:
        suite.rerequested, suite.updated_at = True, now()
    if ctx.repo.events is not None:
        ctx.repo.events.check_run(run, "rerequested", ctx.actor())
    return Reply(201, {})


@route(f"GET {R}/commits/{{ref}}/check-runs")
def list_check_runs(ctx: Context) -> Reply:
    sha = commit_or_422(ctx, ctx.params["ref"])
    runs = sorted(ctx.state.check_runs_for(sha), key=lambda r: -r.id)
    if ctx.query.get("check_name"):
        runs = [r for r in runs if r.name == ctx.query["check_name"]]
    if ctx.query.get("status"):
        runs = [r for r in runs if r.status == ctx.query["status"]]
    if ctx.query.get("app_id"):
        runs = [r for r in runs if r.app_id == ctx.query["app_id"]]
    if ctx.query.get("filter", "latest") == "latest":
        newest: dict[str, CheckRun] = {}
        for run in runs:
            newest.setdefault(run.name, run)
        runs = list(newest.values())
    page, headers = ctx.page(runs)
    return Reply(200, {"total_count": len(runs), "check_runs": [_run_json(ctx, r) for r in page]}, headers)


# suites --------------------------------------------------------------------------------------


def _suite(ctx: Context) -> CheckSuite:
    suite = ctx.state.check_suites.get(int(ctx.params["check_suite_id"]))
    if suite is None:
        raise not_found()
    return suite


@route(f"GET {R}/commits/{{ref}}/check-suites")
def list_check_suites(ctx: Context) -> Reply:
    sha = commit_or_422(ctx, ctx.params["ref"])
    with ctx.state.lock:
        suites = sorted((s for s in ctx.state.check_suites.values() if s.head_sha == sha), key=lambda s: s.id)
    if ctx.query.get("app_id"):
        suites = [s for s in suites if s.app_id == ctx.query["app_id"]]
    page, headers = ctx.page(suites)
    return Reply(200, {"total_count": len(suites), "check_suites": [_suite_json(ctx, s) for s in page]}, headers)


@route(f"GET {R}/check-suites/{{check_suite_id}}")
def get_check_suite(ctx: Context) -> Reply:
    return Reply(200, _suite_json(ctx, _suite(ctx)))


@route(f"GET {R}/check-suites/{{check_suite_id}}/check-runs")
def list_suite_runs(ctx: Context) -> Reply:
    suite = _suite(ctx)
    with ctx.state.lock:
        runs = sorted((r for r in ctx.state.check_runs.values() if r.suite_id == suite.id), key=lambda r: -r.id)
    if ctx.query.get("check_name"):
        runs = [r for r in runs if r.name == ctx.query["check_name"]]
    if ctx.query.get("filter", "latest") == "latest":
        newest: dict[str, CheckRun] = {}
        for run in runs:
            newest.setdefault(run.name, run)
        runs = list(newest.values())
    page, headers = ctx.page(runs)
    return Reply(200, {"total_count": len(runs), "check_runs": [_run_json(ctx, r) for r in page]}, headers)


@route(f"POST {R}/check-suites/{{check_suite_id}}/rerequest", needs="write")
def rerequest_suite(ctx: Context) -> Reply:
    """The suite goes back to queued and its App gets `check_suite` `rerequested`."""
    suite = _suite(ctx)
    suite.rerequested, suite.updated_at = True, now()
    if ctx.repo.events is not None:
        ctx.repo.events.check_suite(suite, "rerequested", ctx.actor())
    return Reply(201, {})
