"""`memshelf-bot demo --app`: the same story as `demo`, driven by webhooks into a real `serve`.

The sandbox plays GitHub for a GitHub App (it holds the App's public key, mints installation
tokens for its JWTs) and delivers signed webhooks as things happen; `memshelf-bot serve` (its
own process, SQLite queue in the scratch directory, two workers) does the rest: the agent pushes,
the App opens the pull request and checks it (check run, annotations, sticky comment), the agent
fixes, a maintainer merges, the App renders main, and `/shelf resolve` is answered.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from memshelf_render import escape

from .demo_stage import (
    AGENT,
    AGENT_TOKEN,
    BAD,
    BRANCH,
    GOOD,
    REPO,
    Demo,
    expect,
    heading,
    rendered_example,
    run_demo,
    show_file,
)

APP_ID, SLUG = 31337, "memshelf-bot-demo"
BOT = f"{SLUG}[bot]"
MAINTAINER, MAINTAINER_TOKEN = "maintainer", "ghp_demoMaintainerToken00000000000000000"
VISITOR, VISITOR_TOKEN = "visitor", "ghp_demoVisitorToken0000000000000000000000"
SECRET = "demo-webhook-secret"
T = TypeVar("T")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _eventually(what: str, probe: Callable[[], T | None], timeout: float = 90.0) -> T:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        time.sleep(0.25)
    raise AssertionError(f"demo: expected {what} within {timeout:.0f} s")


@contextmanager
def _serve(work: Path, port: int, api_url: str, key: Path) -> Iterator[list[str]]:
    """`memshelf-bot serve` in its own process; its JSON log lines collected; SIGTERM at the end."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSHELF_BOT_", "GITHUB_"))}
    env.update(MEMSHELF_BOT_APP_ID=str(APP_ID), MEMSHELF_BOT_PRIVATE_KEY_FILE=str(key),
               MEMSHELF_BOT_WEBHOOK_SECRET=SECRET, MEMSHELF_BOT_WRITE_SPACING="0")
    proc = subprocess.Popen([sys.executable, "-m", "bot.cli", "serve", "--port", str(port), "--admin-port", "0",
                             "--data-dir", str(work / "app-data"), "--workers", "2", "--github-url", api_url],
                            env=env, cwd=work, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True).start()
    try:
        ready = proc.stdout.readline() if proc.stdout else ""
        expect(ready.startswith("ready "), f"serve to print its ready line (got {ready!r})")
        print(f"  {ready.strip()}  (memshelf-bot serve, pid {proc.pid}, 2 workers, SQLite queue)")
        admin = proc.stdout.readline() if proc.stdout else ""
        expect(admin.startswith("admin "), f"serve to print its admin line (got {admin!r})")
        print(f"  {admin.strip()}  (status page and /metrics, on loopback only)")
        yield lines
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        print(f"  serve stopped on SIGTERM: exit {code}")
        (work / "serve.log").write_text("\n".join(lines), encoding="utf-8")
        if sys.exc_info()[0] is not None:  # the demo failed: what serve did last says why
            _print_tail(lines)


def _print_tail(lines: list[str], count: int = 80) -> None:
    """serve's last job events and every warning or error, one line each."""
    shown = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if record.get("level") in ("warning", "error") or str(record.get("event", "")).startswith(
                ("job.", "webhook.", "flow")):  # `flow` lines: what each flow decided and did
            shown.append(" ".join(f"{k}={record[k]}" for k in ("level", "event", "delivery", "gh_event", "action",
                                                                 "flow", "branch", "outcome", "error", "detail",
                                                                 "text", "msg")
                                  if record.get(k) not in (None, "")))
    print("  serve's last events:", file=sys.stderr)
    for text in shown[-count:]:  # the log's values come from the shelf and the PR: hostile
        print(f"    {escape.terminal(text[:300])}", file=sys.stderr)


@contextmanager
def _unacknowledged_on_failure(sb: Any) -> Iterator[None]:
    """When the demo fails, the webhooks serve did not acknowledge (a lost delivery waits for the
    App's redelivery sweep, minutes later)."""
    try:
        yield
    except BaseException:
        for r in sb.deliveries.listing():
            if not 200 <= r["status_code"] < 300:
                print(escape.terminal(f"  webhook {r['event']}.{r['action'] or ''} {r['guid']}: {r['status']} "
                                      f"({r['status_code']}) after {r['duration']} s"), file=sys.stderr)
        raise


def _check_runs(repo: Any, sha: str) -> list[Any]:
    return [r for r in repo.get_commit(sha).get_check_runs() if r.status == "completed"]


def _show_run(run: Any) -> None:
    print(f"  check run {run.name!r} by {run.app.slug}: {run.conclusion} — {run.output.title}")
    for a in run.get_annotations():
        print(f"    {a.annotation_level:8} {a.path}#L{a.start_line}  {a.title or ''}")
        print(textwrap.indent(a.message, "             "))


def _sticky(repo: Any, number: int) -> str:
    sticky = [c for c in repo.get_issue(number).get_comments() if c.body.startswith("<!-- memshelf-bot:sticky")]
    body = sticky[-1].body if sticky else ""
    print(f"  ({len(sticky)} sticky comment(s) by {', '.join(c.user.login for c in sticky)})")
    print(textwrap.indent(body, "  │ ", predicate=lambda _: True))
    return body


def play_app(work: Path) -> None:
    from . import Sandbox
    from .app import App
    from .demo import BAD_TEXT, GOOD_TEXT, _fixed

    bare = rendered_example(work)
    pem = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    key = work / "app.pem"
    key.write_bytes(pem)
    port = _free_port()
    app = App.from_private_key(APP_ID, pem, slug=SLUG)
    with Sandbox.start(bare, REPO, app=app, webhook=(f"http://127.0.0.1:{port}/webhook", SECRET)) as sb:
        sb.add_token(AGENT_TOKEN, AGENT, permission="write", integration=False)
        sb.add_token(MAINTAINER_TOKEN, MAINTAINER, permission="write", integration=False)
        sb.add_token(VISITOR_TOKEN, VISITOR, permission="read", integration=False)
        heading(f"sandbox {sb.api_url} plays GitHub for the App {BOT} (id {APP_ID}) on {REPO}, "
                f"delivering signed webhooks to :{port}/webhook")
        with _serve(work, port, sb.api_url, key) as log_lines, _unacknowledged_on_failure(sb):
            repo = sb.github(MAINTAINER_TOKEN).get_repo(REPO)
            demo = Demo(work, sb)
            heading(f"the night-shift agent pushes {BRANCH} with one good and one bad episode (git, smart HTTP)")
            demo.git("clone", "--quiet", sb.git_url(AGENT_TOKEN), str(demo.agent_dir), cwd=work)
            demo.agent_pushes("Shelve the night shift", {GOOD: GOOD_TEXT, BAD: BAD_TEXT})
            head = sb.store.ref(f"refs/heads/{BRANCH}")
            pull = _eventually("the App to open the branch's pull request",
                               lambda: next(iter(repo.get_pulls(head=f"{REPO.split('/')[0]}:{BRANCH}")), None))
            print(f"  push delivered → the App opened PR #{pull.number} as {pull.user.login}: {pull.title!r}")
            heading("what the author sees: the check run, its annotations, the sticky comment")
            run = _eventually("a completed check run on the head", lambda: _check_runs(repo, head))[-1]
            _show_run(run)
            _sticky(repo, pull.number)
            expect(run.conclusion == "failure", "the bad episode to fail the check run")

            heading("the agent applies the suggestions and pushes; the App checks again")
            demo.agent_pushes("Fix the NAS episode", {BAD: _fixed(BAD_TEXT)})
            fixed = sb.store.ref(f"refs/heads/{BRANCH}")
            green = _eventually("a passing check run on the fixed head",
                                lambda: [r for r in _check_runs(repo, fixed) if r.conclusion == "success"])
            _show_run(green[-1])
            expect("✅ valid" in _sticky(repo, pull.number), "the sticky comment to say the PR is valid")

            heading("the maintainer merges; the push to main is delivered and the App renders")
            merged = repo.get_pull(pull.number).merge(merge_method="merge").sha
            rendered = _eventually("the App's render commit on main", lambda: (
                c if (c := repo.get_branch("main").commit).sha != merged and c.commit.parents[0].sha == merged
                else None))
            print(f"  {rendered.sha[:12]} by {rendered.commit.author.name}: {rendered.commit.message.strip()!r}")
            print("  (created through the Git Data API with no explicit author or committer: GitHub signs it)")
            heading("INDEX.md on main")
            print(textwrap.indent(show_file(sb, rendered.sha, "INDEX.md"), "  "), end="")

            heading("/shelf resolve from a reader, then from a maintainer, on the agent's next branch")
            demo.agent_pushes("Shelve another night", {
                "docs/sessions/2026-09-24-ups-retest.md": GOOD_TEXT.replace("2026-09-23-ups-runtime-test",
                                                                            "2026-09-24-ups-retest")})
            second = _eventually("the second pull request", lambda: next(
                (p for p in repo.get_pulls(state="open") if p.number != pull.number), None), timeout=180)
            sb.github(VISITOR_TOKEN).get_repo(REPO).get_issue(second.number).create_comment("/shelf resolve")
            refusal = _eventually("the App to refuse the reader", lambda: [
                c.body for c in repo.get_issue(second.number).get_comments()
                if c.user.login == BOT and "write access" in c.body])
            print(f"  {VISITOR}: /shelf resolve → {refusal[0]}")
            repo.get_issue(second.number).create_comment("/shelf resolve")
            answer = _eventually("the App to answer the maintainer", lambda: [
                c.body for c in repo.get_issue(second.number).get_comments()
                if c.user.login == BOT and "write access" not in c.body and not c.body.startswith("<!--")])
            print(f"  {MAINTAINER}: /shelf resolve →")
            print(textwrap.indent(answer[-1], "  │ ", predicate=lambda _: True))
            heading("deliveries as serve saw them")
            records = sb.deliveries.listing()
            print(f"  {len(records)} webhooks delivered, "
                  f"{sum(1 for r in records if 200 <= r['status_code'] < 300)} acknowledged with 2xx; "
                  f"{sum(1 for line in log_lines if 'job.finished' in line)} jobs ran")
            expect(all(200 <= r["status_code"] < 300 for r in records), "every webhook to be acknowledged")


def cli_main(args: Any) -> int:
    return run_demo(args, "memshelf-bot demo --app", play_app,
                    "the loop closed through webhooks — pushed, checked, fixed, merged, rendered and resolved "
                    "by the App.")
