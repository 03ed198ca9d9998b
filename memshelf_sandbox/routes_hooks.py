"""The App's webhook deliveries API: list (cursor paging, filters), one delivery, redeliver."""

from __future__ import annotations

import base64
import binascii
from urllib.parse import urlencode

from .api import ApiError, Reply, not_found
from .routes_app import AppContext, app_route

# exact-match filters GitHub's UI and API accept beside the documented `status`
FILTERS = ("status_code", "redelivery", "guid", "event", "action")


def _cursor(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return int(base64.urlsafe_b64decode(value.encode()).decode())
    except (ValueError, binascii.Error) as exc:
        raise ApiError(400, "Invalid cursor") from exc


@app_route("GET /app/hook/deliveries")
def list_deliveries(ctx: AppContext) -> Reply:
    """Newest first; `per_page` and an opaque `cursor` with a `Link: <…>; rel="next"` header;
    `status` (success: 200–399, failure: 400–599) and the exact filters in `FILTERS`."""
    records = ctx.deliveries.listing() if ctx.deliveries else []
    status = ctx.query.get("status")
    if status == "success":
        records = [r for r in records if 200 <= r["status_code"] < 400]
    elif status == "failure":
        records = [r for r in records if 400 <= r["status_code"] < 600]
    for name in FILTERS:
        wanted = ctx.raw_query.get(name)
        if wanted:
            records = [r for r in records if str(r[name]).lower() == wanted[-1].lower()]
    start = _cursor(ctx.query.get("cursor"))
    if start is not None:
        records = [r for r in records if r["id"] <= start]
    per_page = max(1, min(int(ctx.query.get("per_page") or 30), 100))
    page, rest = records[:per_page], records[per_page:]
    headers = {}
    if rest:
        query = {key: values[-1] for key, values in ctx.raw_query.items() if key != "cursor"}
        query["cursor"] = base64.urlsafe_b64encode(str(rest[0]["id"]).encode()).decode()
        headers["Link"] = f'<{ctx.request_url}?{urlencode(query)}>; rel="next"'
    return Reply(200, page, headers)


@app_route("GET /app/hook/deliveries/{delivery_id}")
def get_delivery(ctx: AppContext) -> Reply:
    record = ctx.deliveries.record(int(ctx.params["delivery_id"])) if ctx.deliveries else None
    if record is None:
        raise not_found()
    return Reply(200, record)


@app_route("POST /app/hook/deliveries/{delivery_id}/attempts")
def redeliver(ctx: AppContext) -> Reply:
    if ctx.deliveries is None or ctx.deliveries.redeliver(int(ctx.params["delivery_id"])) is None:
        raise not_found()
    return Reply(202, {})
