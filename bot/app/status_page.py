"""The status page (GET /): recent deliveries and the queue depth, server-rendered HTML.

Every value is escaped; it shows what the store records about a delivery (event, repository,
outcome, duration) and never a payload, a token or the App's key.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence

from .store import Record

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1f2328}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #d0d7de;padding:.35rem .6rem;text-align:left}
th{background:#f6f8fa}.succeeded{color:#1a7f37}.failed{color:#cf222e}.running,.queued,.received,.coalesced{color:#9a6700}
"""


def _when(ts: float, now: float) -> str:
    ago = max(now - ts, 0)
    return f"{ago:.0f} s ago" if ago < 120 else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))


def _row(d: Record, now: float) -> str:
    cells = [d.event + (f".{d.action}" if d.action else ""), d.repository, d.state.value,
             f"{d.duration:.2f} s" if d.duration is not None else "", _when(d.received_at, now), d.detail[:160]]
    tds = "".join(f"<td>{html.escape(c)}</td>" for c in cells)
    return f'<tr class="{html.escape(d.state.value)}">{tds}</tr>'


def render_status(recent: Sequence[Record], queue_depth: int, now: float) -> str:
    rows = "\n".join(_row(d, now) for d in recent) or '<tr><td colspan="6">no deliveries yet</td></tr>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memshelf-bot</title><style>{STYLE}</style></head>
<body><h1>memshelf-bot</h1>
<p>Queue depth: <strong id="queue-depth">{int(queue_depth)}</strong></p>
<h2>Recent deliveries</h2>
<table id="deliveries"><thead><tr><th>event</th><th>repository</th><th>outcome</th><th>duration</th>
<th>received</th><th>detail</th></tr></thead>
<tbody>
{rows}
</tbody></table></body></html>
"""
