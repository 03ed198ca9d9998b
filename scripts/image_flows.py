"""Every flow the Action image serves, run once on a copy of SHELF, with no network beyond loopback.

Run by the Dockerfile's build stage under `scripts/image_keep.py trace` (what these runs load is
what the image keeps), and once more after the prune (they must all still work). Each step is the
`memshelf-bot` console script as the image runs it, its exit status and output checked:

- the CLI: `--version`; `render --badge` (INDEX, the chart, the badge), `render --check`;
  `stats --png` (matplotlib, then cairosvg/Pillow) and `--format json`; `badge` as SVG and JSON;
  `validate` in each format on a branch adding a bad episode (an id mismatch and a secret);
  `guard`; `resolve` inside a merge whose derived files conflict; `fix`;
- the Action: a pull request in `mode: validate` (git, no API), then a push to main, a push to an
  agent branch and a `/shelf render` comment against a stub GitHub API on loopback that answers
  every request 404 (PyGithub's request and error path: requests, urllib3, the JSON answer);
- the App: `serve` (waitress, huey on SQLite, prometheus_client) with its status page, metrics,
  health, a signed ping and a signed pull request whose job signs a JWT (PyJWT, cryptography)
  and asks the stub for an installation token; `setup`'s manifest page; `serve --redis` and
  `worker --redis` (redis-py, RedisHuey) against a port where no Redis listens.

usage: python scripts/image_flows.py SHELF
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

BIN = Path(sys.executable).parent / "memshelf-bot"
TOKEN = "ghs_imageFlowsToken000000000000000000000"
SECRET_LINE = "The backup key was AKIAQ7IMAGEFLOWKEY42 for a day."  # a secret validate must flag
WEBHOOK_SECRET = "image-flows-webhook-secret"
GIT_ENV = {"GIT_AUTHOR_NAME": "agent", "GIT_AUTHOR_EMAIL": "agent@example.com", "GIT_COMMITTER_NAME": "agent",
           "GIT_COMMITTER_EMAIL": "agent@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0"}


class FlowFailed(AssertionError):
    pass


def run(*args: str, codes: tuple[int, ...] = (0,), env: dict[str, str] | None = None, cwd: Path | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`memshelf-bot ARGS`; its exit status must be one of `codes` and no import may have failed."""
    proc = subprocess.run([str(BIN), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)
    output = proc.stdout + proc.stderr
    if proc.returncode not in codes or "ImportError" in output or "ModuleNotFoundError" in output:
        raise FlowFailed(f"memshelf-bot {' '.join(args)}: exit {proc.returncode}\n{output}")
    return proc


def expect(condition: bool, what: str) -> None:
    if not condition:
        raise FlowFailed(what)


def git(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


APP = {"id": 42, "slug": "memshelf-bot", "name": "memshelf-bot", "node_id": "A_1", "owner": {"login": "octo"},
       "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "permissions": {}, "events": []}


class StubGitHub:
    """GitHub's API on loopback: `GET /app` answers the App's identity, every other request 404,
    as GitHub does for an object it does not know."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                requests.append(f"{self.command} {self.path}")
                length = int(self.headers.get("Content-Length") or 0)
                self.rfile.read(length)
                status, body = 404, b'{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}'
                if self.command == "GET" and self.path.split("?")[0].endswith("/app"):  # the App's identity
                    status, body = 200, json.dumps(APP).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the CLI ------------------------------------------------------------------------------------


def bad_episode(shelf: Path) -> str:
    """An episode whose id does not match its file name and whose body holds a secret."""
    good = sorted((shelf / "docs").rglob("*.md"))[0]
    rel = str(good.relative_to(shelf).with_name("2026-10-03-backup-window.md"))
    (shelf / rel).write_text(good.read_text(encoding="utf-8").replace("## Digest", f"## Digest\n{SECRET_LINE}"),
                             encoding="utf-8")
    return rel


def cli(shelf: Path, work: Path) -> None:
    expect(run("--version").stdout.startswith("memshelf-bot "), "--version")
    run("render", str(shelf), "--badge")
    expect(all((shelf / name).is_file() for name in ("INDEX.md", "stats.svg", "badge.svg", "badge.json")),
           "render --badge writes INDEX.md, stats.svg and the badge")
    run("render", "--check", "--badge", str(shelf))
    png = work / "stats.png"
    run("stats", str(shelf), "--png", str(png))
    expect(png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "stats --png writes a PNG")
    expect(isinstance(json.loads(run("stats", str(shelf), "--format", "json").stdout), dict), "stats as JSON")
    run("badge", str(shelf), "--format", "json")
    run("badge", str(shelf), "--out", str(work / "badge.svg"))
    expect((work / "badge.svg").read_bytes().startswith(b"<svg"), "badge --out writes an SVG")


def repository(shelf: Path) -> tuple[str, str, str]:
    """The shelf as a git repository: main rendered, `shelve/backup-window` adding a bad episode."""
    git("init", "--quiet", "--initial-branch=main", cwd=shelf)
    git("add", "-A", cwd=shelf)
    git("commit", "--quiet", "-m", "The shelf, rendered", cwd=shelf)
    base = git("rev-parse", "HEAD", cwd=shelf)
    git("checkout", "--quiet", "-b", "shelve/backup-window", cwd=shelf)
    bad = bad_episode(shelf)
    git("add", "-A", cwd=shelf)
    git("commit", "--quiet", "-m", "Shelve the backup window", cwd=shelf)
    return base, git("rev-parse", "HEAD", cwd=shelf), bad


def checks(shelf: Path, bad: str) -> None:
    for form in ("text", "github", "sarif"):
        run("validate", str(shelf), "--format", form, codes=(1,))
    verdict = json.loads(run("validate", str(shelf), "--format", "json", "--changed", bad, codes=(1,)).stdout)
    expect(verdict["verdict"] == "violations" and any(f["code"] == "secret" for f in verdict["findings"]),
           "validate finds the bad episode's secret")
    run("guard", "--base", "main", "--head", "HEAD", str(shelf))


def resolve(shelf: Path, work: Path) -> None:
    """Two branches each add an episode and render: their merge conflicts in the derived files."""
    tree = work / "merge"
    git("clone", "--quiet", str(shelf), str(tree), cwd=work)
    git("checkout", "--quiet", "main", cwd=tree)
    git("rm", "--quiet", "badge.svg", "badge.json", cwd=tree)  # the badge is derived only where enabled
    git("commit", "--quiet", "-m", "No badge", cwd=tree)
    episodes = sorted((tree / "docs").rglob("*.md"))
    for branch, source in (("one", episodes[0]), ("two", episodes[-1])):
        git("checkout", "--quiet", "-B", branch, "main", cwd=tree)
        copy = source.with_name(f"2026-10-0{len(branch)}-{branch}.md")
        copy.write_text(source.read_text(encoding="utf-8").replace(source.stem, copy.stem), encoding="utf-8")
        run("render", str(tree))
        git("add", "-A", cwd=tree)
        git("commit", "--quiet", "-m", f"Episode {branch}", cwd=tree)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} | GIT_ENV
    subprocess.run(["git", "merge", "--quiet", "one"], cwd=tree, env=env, capture_output=True, check=False)
    expect(bool(git("diff", "--name-only", "--diff-filter=U", cwd=tree)), "the merge conflicts in derived files")
    run("resolve", str(tree), "--commit", env=env)
    expect(not git("status", "--porcelain", cwd=tree), "resolve --commit settles the merge")


# --- the Action ---------------------------------------------------------------------------------


def action(workspace: Path, work: Path, event: str, payload: dict, *, codes: tuple[int, ...], api: str = "",
           **inputs: str) -> dict[str, str]:
    """One `memshelf-bot action` step as the runner starts it; its outputs."""
    step = Path(tempfile.mkdtemp(dir=work, prefix="step-"))
    (step / "event.json").write_text(json.dumps(payload), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))} | {
        "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(step / "event.json"),
        "GITHUB_WORKSPACE": str(workspace), "GITHUB_REPOSITORY": "octo/shelf", "GITHUB_OUTPUT": str(step / "out"),
        "GITHUB_STEP_SUMMARY": str(step / "summary"), "GITHUB_RUN_ID": "1", "GITHUB_ACTOR": "octocat",
        "HOME": str(step), "INPUT_TOKEN": TOKEN, **{f"INPUT_{k.upper()}": v for k, v in inputs.items()}}
    if api:
        env |= {"GITHUB_API_URL": api, "GITHUB_SERVER_URL": api}
    run("action", codes=codes, env=env, cwd=workspace)
    lines = (step / "out").read_text(encoding="utf-8").splitlines() if (step / "out").exists() else []
    outputs = {}
    for i, line in enumerate(lines):  # name<<DELIMITER / value / DELIMITER
        if "<<" in line:
            name, _, delimiter = line.partition("<<")
            outputs[name] = lines[i + 1] if lines[i + 1] != delimiter else ""
        elif "=" in line:
            name, _, value = line.partition("=")
            outputs[name] = value
    return outputs


def the_action(shelf: Path, work: Path, base: str, head: str, stub: StubGitHub) -> None:
    repo = {"full_name": "octo/shelf", "name": "shelf", "default_branch": "main", "owner": {"login": "octo"}}
    pull = {"number": 7, "state": "open", "head": {"ref": "shelve/backup-window", "sha": head, "repo": repo},
            "base": {"ref": "main", "sha": base, "repo": repo}, "user": {"login": "agent", "type": "User"}}
    out = action(shelf, work, "pull_request", {"action": "opened", "number": 7, "pull_request": pull,
                                               "repository": repo}, codes=(1,), mode="validate")
    expect(out.get("verdict") == "violations", f"the Action's PR validation finds violations: {out}")
    commits = [{"id": head, "message": "Shelve", "added": [], "modified": [], "removed": []}]
    push = {"before": base, "after": head, "commits": commits, "head_commit": commits[0], "repository": repo,
            "pusher": {"name": "agent"}, "sender": {"login": "agent", "type": "User"}}
    for ref in ("refs/heads/main", "refs/heads/shelve/backup-window"):
        asked = len(stub.requests)
        out = action(shelf, work, "push", {**push, "ref": ref}, codes=(0, 1, 2), api=stub.url, badge="true")
        expect("verdict" in out and len(stub.requests) > asked,
               f"the Action on a push to {ref} asks the API and writes its outputs: {out}")
    comment = {"action": "created", "issue": {"number": 7, "pull_request": {"url": ""}},
               "comment": {"id": 1, "body": "/shelf render", "user": {"login": "octocat", "type": "User"}},
               "repository": repo, "sender": {"login": "octocat", "type": "User"}}
    action(shelf, work, "issue_comment", comment, codes=(0, 1, 2), api=stub.url)


# --- the App ------------------------------------------------------------------------------------


def app_env(work: Path) -> dict[str, str]:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = work / "app-key.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSHELF_BOT_", "GITHUB_"))}
    return env | {"MEMSHELF_BOT_APP_ID": "42", "MEMSHELF_BOT_PRIVATE_KEY_FILE": str(pem),
                  "MEMSHELF_BOT_WEBHOOK_SECRET": WEBHOOK_SECRET}


def start(args: list[str], env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen[str], list[str]]:
    """`memshelf-bot ARGS` running; the lines it printed up to `ready` (or its end)."""
    proc = subprocess.Popen([str(BIN), *args], env=env, cwd=cwd, text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    lines: list[str] = []
    assert proc.stdout is not None
    for line in proc.stdout:
        lines.append(line.rstrip("\n"))
        if line.startswith("ready"):
            break
    return proc, lines


def stop(proc: subprocess.Popen[str], lines: list[str], what: str, patience: float = 30) -> None:
    """SIGTERM, then its output checked for a failed import. What it loaded is traced already, so a
    process that outstays `patience` (seen once for `worker` with Redis unreachable, on a loaded
    machine) is killed with its children and named on stderr rather than failing the build."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        rest, _ = proc.communicate(timeout=patience)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        rest, _ = proc.communicate()
        print(f"image_flows: {what} did not stop within {patience:.0f} s of SIGTERM; killed", file=sys.stderr)
    output = "\n".join(lines) + rest
    expect("ImportError" not in output and "ModuleNotFoundError" not in output, f"{what}: an import failed\n{output}")


def signed(url: str, event: str, payload: dict) -> int:
    body = json.dumps(payload).encode()
    headers = {"Content-Type": "application/json", "X-GitHub-Event": event,
               "X-GitHub-Delivery": hashlib.sha256(body).hexdigest()[:32],
               "X-Hub-Signature-256": "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), body, "sha256").hexdigest()}
    request = urllib.request.Request(f"{url}/webhook", data=body, headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


def get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def the_app(work: Path, base: str, head: str, stub: StubGitHub) -> None:
    env = app_env(work)
    proc, lines = start(["serve", "--port", "0", "--admin-port", "0", "--data-dir", str(work / "app"),
                         "--github-url", stub.url], env, work)
    try:
        expect(bool(lines) and lines[-1].startswith("ready "), f"serve gets ready: {lines}")
        url = lines[-1].split()[1].rstrip("/")
        lines.append((proc.stdout.readline() if proc.stdout else "").rstrip("\n"))
        expect(lines[-1].startswith("admin "), f"serve names its admin listener: {lines}")
        admin = lines[-1].split()[1].rstrip("/")
        expect(b"memshelf" in get(f"{admin}/").lower() and bool(get(f"{admin}/metrics")) and bool(get(f"{url}/healthz")),
               "the status page, metrics and health answer")
        expect(signed(url, "ping", {"zen": "Keep it logically awesome.", "hook_id": 1}) in (200, 202), "ping")
        repo = {"full_name": "octo/shelf", "name": "shelf", "default_branch": "main", "owner": {"login": "octo"}}
        pull = {"number": 7, "state": "open", "head": {"ref": "shelve/x", "sha": head, "repo": repo},
                "base": {"ref": "main", "sha": base, "repo": repo}, "user": {"login": "agent", "type": "User"}}
        expect(signed(url, "pull_request", {"action": "opened", "number": 7, "pull_request": pull,
                                            "repository": repo, "installation": {"id": 5}}) == 202, "a PR delivery")
        deadline = time.monotonic() + 60
        while not any(r.endswith("/app/installations/5/access_tokens") for r in stub.requests):
            expect(time.monotonic() < deadline, f"the job asks for an installation token: {stub.requests}")
            time.sleep(0.1)
    finally:
        stop(proc, lines, "serve")
    setup = subprocess.Popen([str(BIN), "setup", "--webhook-url", "https://bot.example.com/webhook", "--github-url",
                              stub.url, "--data-dir", str(work / "setup")], env=env, cwd=work, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    opened = setup.stdout.readline() if setup.stdout else ""
    try:
        expect(opened.startswith("open ") and b"manifest" in get(opened.split()[1]),
               f"setup serves the page that posts the App's manifest: {opened!r}")
    finally:
        stop(setup, [opened], "setup")
    redis = f"redis://127.0.0.1:{closed_port()}/0"
    for args in (["serve", "--port", "0", "--admin-port", "0", "--redis", redis], ["worker", "--redis", redis]):
        proc, lines = start([*args, "--github-url", stub.url], env, work)
        time.sleep(2)
        stop(proc, lines, args[0])


def main() -> int:
    source = Path(sys.argv[1])
    work = Path(tempfile.mkdtemp(prefix="image-flows-"))
    stub = StubGitHub()
    try:
        shelf = work / "shelf"
        shutil.copytree(source, shelf)
        cli(shelf, work)
        base, head, bad = repository(shelf)
        checks(shelf, bad)
        resolve(shelf, work)
        the_action(shelf, work, base, head, stub)
        run("fix", str(shelf), "--changed", bad, codes=(0, 1))
        the_app(work, base, head, stub)
    finally:
        stub.close()
        shutil.rmtree(work, ignore_errors=True)
    print("image_flows: every flow ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
