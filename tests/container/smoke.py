#!/usr/bin/env python3
"""Container smoke test: run the built Action image the way GitHub's runner does, and check what
it leaves behind — the exit status, $GITHUB_OUTPUT, the job summary and the annotations.

Run by `.ci/run` through the shared container-smoke script, which builds the Dockerfile unmodified
and exports IMAGE (the tag) and DOCKER (the client). The host side (git, the fixture repository,
the GitHub sandbox) uses this virtualenv's `memshelf-bot`; only the image runs the bot.

First the image itself, which keeps of its libraries only what a trace of its flows loaded
(scripts/image_keep.py), so each flow is run here once more: `memshelf-bot --version` runs,
matplotlib's font cache is already built in MPLCONFIGDIR (for the fonts kept), `stats --png` draws
a chart and rasterizes it through cairosvg/libcairo2, `validate` and `badge` answer in JSON,
`render --badge` writes every derived file, stats.svg and the badge included; and the App: `serve`
answers its health check, metrics, status page and a signed ping (huey on SQLite), and `serve`
and `worker` run on a real Redis when the host has redis-server.

Then the Action, each a `docker run` of the image's own entrypoint with a runner-like mount layout
(/github/workspace owned by another uid, /github/file_commands, /github/workflow, HOME=/github/home)
and every input action.yml declares passed as INPUT_* exactly as the runner would:
1. pull_request, `mode: validate`, `--network=none`: the validate-only path with no API at all.
   A PR with a bad episode fails with the verdict; a PR with a good one passes.
2. push to an agent branch, `--network=host`, API at a sandbox on the host: the bot opens the
   branch's pull request and sets the commit status on its head.
3. push to main, `--network=host`, API and git at a sandbox on the host: the derived files are
   rendered (chart and badge included) and committed as one fast-forward commit; then the bot's
   own push renders nothing, and a manual run finds the rendered main a fixed point.

The image's size is budgeted: our layers (the image less its base, the Dockerfile's final FROM)
stay within LAYER_BUDGET_MB. Last, start → verdict of a PR run on a 1,000-episode shelf is
measured (the median of a few `docker run`s, printed, not asserted: the machine is shared).

Usage: IMAGE=... DOCKER=... .venv/bin/python tests/container/smoke.py
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from memshelf_sandbox.actionrun import StepResult, parse_commands, parse_outputs

ROOT = Path(__file__).resolve().parent.parent.parent
LAYER_BUDGET_MB = 120  # issue 11: our layers on the smoke script's stand-in base
TIMED_RUNS = 5
FIXTURE = Path(__file__).resolve().parent / "fixture"
EXAMPLE = ROOT / "memshelf_sandbox" / "data" / "example-shelf"
MEMSHELF_BOT = Path(sys.executable).parent / "memshelf-bot"
REPO = "octo/shelf"
TOKEN = "ghs_smokeTestToken0000000000000000000000"
RUNNER_UID = "1001"  # the hosted runner's user owns the workspace; the container runs as root
GOOD = "docs/sessions/2026-10-02-ups-battery-swap.md"
BAD = "docs/topics/2026-10-03-backup-window.md"
SECRET = "AKIAQ7SMOKETESTKEY42"  # in the bad episode; must never come out of the container
DERIVED = {"INDEX.md", "ledger.tsv", "stats.svg", "docs/sessions/.meta.json", "docs/topics/.meta.json",
           "docs/research/.meta.json", "badge.svg", "badge.json"}


def git(*args: str, cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="agent", GIT_AUTHOR_EMAIL="agent@example.com", GIT_COMMITTER_NAME="agent",
               GIT_COMMITTER_EMAIL="agent@example.com", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0")
    proc = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def expect(condition: bool, what: str, result: StepResult | None = None) -> None:
    if condition:
        print(f"  ok: {what}")
        return
    detail = ""
    if result is not None:
        detail = (f"\n--- exit {result.exit_code}\n--- outputs {result.outputs}\n--- stdout\n{result.stdout}"
                  f"\n--- stderr\n{result.stderr}\n--- summary\n{result.summary}")
    raise AssertionError(f"smoke: expected {what}{detail}")


def action_inputs(**given: str) -> dict[str, str]:
    """INPUT_* as the runner sets them for a Docker action: every declared input, the `with:` value
    or else the declared default (`${{ github.token }}` evaluated), empty when there is none."""
    declared = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))["inputs"]
    env = {}
    for name, spec in declared.items():
        value = given.pop(name, str(spec.get("default", "")))
        env[f"INPUT_{name.upper()}"] = TOKEN if value == "${{ github.token }}" else value
    if given:
        raise ValueError(f"not inputs of the action: {sorted(given)}")
    return env


class Runner:
    """`docker run` of the image as the Actions runner starts a container action."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.docker = os.environ.get("DOCKER", "docker")
        self.image = os.environ["IMAGE"]
        self.steps = 0

    def run(self, workspace: Path, event_name: str, payload: dict[str, Any], *, network: str,
            api_url: str = "https://api.github.com", server_url: str = "https://github.com",
            pass_env: tuple[str, ...] = (), entrypoint: tuple[str, ...] = (), **inputs: str) -> StepResult:
        """One step; `pass_env` names variables of this process to pass on as well, `entrypoint`
        replaces the image's (a bench's PYTHONVERBOSE, or a wrapper that reports CPU time)."""
        self.steps += 1
        temp = self.work / f"runner-temp-{self.steps}"
        commands, workflow, home = temp / "_runner_file_commands", temp / "_github_workflow", temp / "_github_home"
        for d in (commands, workflow, home):
            d.mkdir(parents=True)
        (workflow / "event.json").write_text(json.dumps(payload), encoding="utf-8")
        (commands / "set_output").touch()
        (commands / "step_summary").touch()
        subprocess.run(["chown", "-R", f"{RUNNER_UID}:{RUNNER_UID}", str(workspace), str(temp)], check=True)
        env = {
            "HOME": "/github/home", "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": api_url, "GITHUB_SERVER_URL": server_url,
            "GITHUB_OUTPUT": "/github/file_commands/set_output",
            "GITHUB_STEP_SUMMARY": "/github/file_commands/step_summary",
            "GITHUB_RUN_ID": str(1000 + self.steps), "GITHUB_ACTOR": "octocat", "RUNNER_OS": "Linux",
            **action_inputs(**inputs),
        }
        cmd = [self.docker, "run", "--rm", f"--network={network}", "--workdir", "/github/workspace",
               "-v", f"{workspace}:/github/workspace", "-v", f"{commands}:/github/file_commands",
               "-v", f"{workflow}:/github/workflow", "-v", f"{home}:/github/home"]
        for key in (*env, *pass_env):
            cmd += ["-e", key]
        if entrypoint:
            cmd += ["--entrypoint", entrypoint[0]]
        proc = subprocess.run([*cmd, self.image, *entrypoint[1:]], env={**os.environ, **env}, capture_output=True, text=True,
                              timeout=300, check=False)
        annotations, masks = parse_commands(proc.stdout)
        result = StepResult(proc.returncode, proc.stdout, proc.stderr,
                            parse_outputs((commands / "set_output").read_text(encoding="utf-8")),
                            (commands / "step_summary").read_text(encoding="utf-8"), annotations, masks)
        # the token appears once, in the `::add-mask::` command that hides it from the log
        log = "\n".join(line for line in proc.stdout.split("\n") if not line.startswith("::add-mask::"))
        leaked = [where for where, text in (("log", log + proc.stderr), ("summary", result.summary),
                                            ("outputs", json.dumps(result.outputs)))
                  if TOKEN in text or SECRET in text]
        expect(TOKEN in masks and not leaked,
               f"the token masked; no token or secret in {', '.join(leaked) or 'the log, summary or outputs'}",
               result)
        return result


# --- the fixture repository ---------------------------------------------------------------------


def seed(work: Path) -> tuple[Path, str]:
    """A bare repository whose main holds the example shelf with its derived files rendered."""
    tree = work / "seed"
    shutil.copytree(EXAMPLE, tree)
    subprocess.run([str(MEMSHELF_BOT), "render", str(tree)], check=True, capture_output=True)
    bare = work / "shelf.git"
    git("init", "--quiet", "--bare", "--initial-branch=main", str(bare), cwd=work)
    git("init", "--quiet", "--initial-branch=main", cwd=tree)
    git("add", "-A", cwd=tree)
    git("commit", "--quiet", "-m", "Example shelf, rendered", cwd=tree)
    git("push", "--quiet", str(bare), "main", cwd=tree)
    return bare, git("rev-parse", "HEAD", cwd=tree)


def push_branch(bare: Path, work: Path, branch: str, base: str, files: list[str]) -> str:
    """Commit fixture `files` on top of `base` and push them to `branch`; the new commit."""
    tree = work / f"agent-{branch.replace('/', '-')}"
    git("clone", "--quiet", str(bare), str(tree), cwd=work)
    git("checkout", "--quiet", "-B", branch, base, cwd=tree)
    for rel in files:
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURE / rel, tree / rel)
    git("add", "-A", cwd=tree)
    git("commit", "--quiet", "-m", f"Shelve {', '.join(Path(f).stem for f in files)}", cwd=tree)
    git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=tree)
    return git("rev-parse", "HEAD", cwd=tree)


def checkout(bare: Path, work: Path, sha: str, name: str) -> Path:
    """What actions/checkout leaves in the workspace: the repository at `sha`, with history."""
    ws = work / name
    git("clone", "--quiet", str(bare), str(ws), cwd=work)
    git("checkout", "--quiet", "--detach", sha, cwd=ws)
    return ws


def repository(default_branch: str = "main") -> dict[str, Any]:
    payload = json.loads((ROOT / "memshelf_sandbox/data/webhooks/push.json").read_text(encoding="utf-8"))
    return {**payload["repository"], "full_name": REPO, "name": REPO.split("/")[1], "default_branch": default_branch}


def pull_request_event(number: int, branch: str, head: str, base: str) -> dict[str, Any]:
    payload = json.loads((ROOT / "memshelf_sandbox/data/webhooks/pull_request.opened.json").read_text(encoding="utf-8"))
    pr = payload["pull_request"]
    repo = repository()
    pr.update(number=number, head={**pr["head"], "ref": branch, "sha": head, "repo": repo},
              base={**pr["base"], "ref": "main", "sha": base, "repo": repo})
    return {**payload, "number": number, "pull_request": pr, "repository": repo}


def push_event(before: str, after: str, pusher: str, commits: list[dict[str, Any]],
               branch: str = "main") -> dict[str, Any]:
    payload = json.loads((ROOT / "memshelf_sandbox/data/webhooks/push.json").read_text(encoding="utf-8"))
    return {**payload, "ref": f"refs/heads/{branch}", "before": before, "after": after, "created": False,
            "deleted": False, "forced": False, "pusher": {"name": pusher}, "commits": commits,
            "head_commit": commits[-1] if commits else None, "repository": repository()}


def commit_entry(bare: Path, sha: str) -> dict[str, Any]:
    """A push payload's commit entry, from git."""
    changes = git("--git-dir", str(bare), "diff-tree", "--no-commit-id", "--name-status", "-r", f"{sha}^", sha,
                  cwd=bare).splitlines()
    by_status: dict[str, list[str]] = {"A": [], "M": [], "D": []}
    for line in changes:
        status, path = line.split("\t", 1)
        by_status[status[0]].append(path)
    return {"id": sha, "message": git("--git-dir", str(bare), "log", "-1", "--format=%B", sha, cwd=bare),
            "added": by_status["A"], "modified": by_status["M"], "removed": by_status["D"]}


# --- the scenarios ------------------------------------------------------------------------------


def pull_request_without_network(runner: Runner, work: Path, bare: Path, base: str) -> None:
    print("== pull_request, mode validate, --network=none")
    head = push_branch(bare, work, "shelve/backup-window", base, [GOOD, BAD])
    bad = runner.run(checkout(bare, work, head, "ws-pr-bad"), "pull_request",
                     pull_request_event(7, "shelve/backup-window", head, base), network="none", mode="validate")
    expect(bad.exit_code == 1, "exit 1: the verdict is violations", bad)
    o = bad.outputs
    expect(set(o) == {"verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number",
                      "standing_tokens", "sarif_file"}, "every output the action declares is written", bad)
    expect((o["verdict"], o["errors"], o["episodes"]) == ("violations", "2", "2"),
           "verdict=violations, errors=2 over the PR's 2 episodes", bad)
    expect(o["standing_tokens"].isdigit() and o["commit_sha"] == "", "standing_tokens counted, no commit", bad)
    errors = {(a.file, a.line, a.title) for a in bad.by_level("error")}
    expect((BAD, 4, "memshelf-bot: id-mismatch") in errors and (BAD, 21, "memshelf-bot: secret") in errors,
           f"error annotations on {BAD} lines 4 (id) and 21 (secret)", bad)
    expect(not any(a.file == GOOD for a in bad.annotations), "no annotation on the good episode", bad)
    expect("validate pull request #7" in bad.summary and BAD in bad.summary and "«redacted:aws-access-key»"
           in bad.summary, "the summary names the PR, the bad episode and shows the secret masked", bad)

    head = push_branch(bare, work, "shelve/ups-battery-swap", base, [GOOD])
    good = runner.run(checkout(bare, work, head, "ws-pr-good"), "pull_request",
                      pull_request_event(8, "shelve/ups-battery-swap", head, base), network="none", mode="validate")
    expect(good.exit_code == 0, "exit 0 for a PR with a good episode", good)
    expect((good.outputs["verdict"], good.outputs["errors"], good.outputs["episodes"]) == ("valid", "0", "1"),
           "verdict=valid, errors=0, episodes=1", good)
    expect(not good.by_level("error") and "validate pull request #8" in good.summary,
           "no error annotation; the summary names the PR", good)


class Sandbox:
    """`memshelf-bot sandbox` on the host, serving the bare repository to the container."""

    def __init__(self, bare: Path) -> None:
        self.proc = subprocess.Popen([str(MEMSHELF_BOT), "sandbox", "--repo", str(bare), "--port", "0",
                                      "--name", REPO], stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if not line.startswith("ready "):
            self.stop()
            raise RuntimeError(f"the sandbox did not start: {line!r}")
        self.url = line.split()[1]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


def api_get(base_url: str, path: str) -> Any:
    request = urllib.request.Request(base_url.rstrip("/") + path, headers={"Authorization": f"token {TOKEN}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def agent_push_with_sandbox(runner: Runner, work: Path, bare: Path, base: str) -> None:
    print("== push to an agent branch, mode auto, --network=host, GitHub API at the sandbox on the host")
    branch = "shelve/agent-push"
    head = push_branch(bare, work, branch, base, [GOOD])
    sandbox = Sandbox(bare)
    try:
        result = runner.run(checkout(bare, work, head, "ws-agent"), "push",
                            push_event(base, head, "agent", [commit_entry(bare, head)], branch=branch),
                            network="host", api_url=sandbox.url, server_url=sandbox.url)
        o = result.outputs
        expect(result.exit_code == 0 and o["verdict"] == "valid" and o["pr_number"].isdigit(),
               "exit 0, verdict valid, the pull request's number", result)
        pulls = [p for p in api_get(sandbox.url, f"/repos/{REPO}/pulls?state=open") if p["head"]["ref"] == branch]
        expect([str(p["number"]) for p in pulls] == [o["pr_number"]], f"one open pull request for {branch}", result)
        statuses = api_get(sandbox.url, f"/repos/{REPO}/commits/{head}/statuses")
        expect([s["state"] for s in statuses[:1]] == ["success"], "a success status on the pushed head", result)
    finally:
        sandbox.stop()


def render_on_main_with_sandbox(runner: Runner, work: Path, bare: Path, base: str) -> None:
    print("== push to main, mode auto, --network=host, GitHub API and git at the sandbox on the host")
    merged = push_branch(bare, work, "main", base, [GOOD])  # a merged PR: one episode, derived files stale
    sandbox = Sandbox(bare)
    try:
        api = {"api_url": sandbox.url, "server_url": sandbox.url}
        render = runner.run(checkout(bare, work, merged, "ws-main"), "push",
                            push_event(base, merged, "octocat", [commit_entry(bare, merged)]), network="host",
                            badge="true", **api)
        main = git("--git-dir", str(bare), "rev-parse", "main", cwd=bare)
        o = render.outputs
        expect(render.exit_code == 0 and o["verdict"] == "valid", "exit 0, verdict valid", render)
        expect(o["commit_sha"] == main and main != merged, "commit_sha is main's new head", render)
        expect(git("--git-dir", str(bare), "rev-parse", f"{main}^", cwd=bare) == merged,
               "the render commit sits directly on the merged commit (fast-forward)", render)
        message = git("--git-dir", str(bare), "log", "-1", "--format=%an|%s", main, cwd=bare)
        expect(message.endswith("[skip ci]"), f"the commit message ends with [skip ci] ({message!r})", render)
        touched = set(git("--git-dir", str(bare), "diff", "--name-only", merged, main, cwd=bare).splitlines())
        expect(touched <= DERIVED and {"stats.svg", "badge.svg", "badge.json"} <= touched
               and o["changed"] == str(len(touched)),
               f"only derived files committed, the chart and the badge among them, as many as `changed` says "
               f"({sorted(touched)})", render)
        expect(o["episodes"] == "4" and o["standing_tokens"].isdigit(), "episodes=4, standing_tokens counted", render)
        expect(f"committed** `{main[:12]}` to `main`" in render.summary and "fixed point" in render.summary,
               "the summary reports the commit and the fixed point", render)

        check = checkout(bare, work, main, "host-check")
        drift = subprocess.run([str(MEMSHELF_BOT), "render", "--check", "--badge", str(check)], capture_output=True,
                               text=True, check=False)
        expect(drift.returncode == 0, f"render --check on the new main is clean on the host: {drift.stdout.strip()}")

        own = runner.run(checkout(bare, work, main, "ws-own"), "push",
                         push_event(merged, main, "github-actions[bot]", [commit_entry(bare, main)]),
                         network="host", badge="true", **api)
        expect(own.exit_code == 0 and "the bot's own render" in own.summary and own.outputs["commit_sha"] == "",
               "the bot's own render push renders nothing", own)

        dispatch = {"ref": "refs/heads/main", "repository": repository(), "inputs": {"mode": "render"},
                    "sender": {"login": "octocat"}, "workflow": ".github/workflows/shelf-bot.yml"}
        again = runner.run(checkout(bare, work, main, "ws-dispatch"), "workflow_dispatch", dispatch,
                           network="host", mode="render", badge="true", **api)
        expect(again.exit_code == 0 and again.outputs["changed"] == "0" and again.outputs["commit_sha"] == ""
               and "nothing to render" in again.summary, "a manual render of the rendered main commits nothing",
               again)
        expect(git("--git-dir", str(bare), "rev-parse", "main", cwd=bare) == main, "main did not move", again)
    finally:
        sandbox.stop()


def font_cache_in_image(docker: str, image: str) -> None:
    """matplotlib's font cache was built at image build time, where MPLCONFIGDIR points."""
    probe = ("import glob, os, matplotlib; d = os.environ['MPLCONFIGDIR']; "
             "print(matplotlib.get_cachedir() == d, len(glob.glob(d + '/fontlist-*.json')))")
    proc = subprocess.run([docker, "run", "--rm", "--network=none", "--entrypoint", "python", image, "-c", probe],
                          capture_output=True, text=True, check=False)
    expect(proc.stdout.split() == ["True", "1"], f"the font cache is in the image's MPLCONFIGDIR: {proc.stdout}"
           f"{proc.stderr}")


def png_through_cairo(docker: str, image: str, work: Path) -> None:
    """`stats --png` in the image: matplotlib draws the chart, cairosvg (libcairo2) rasterizes it."""
    out = work / "png"
    out.mkdir()
    proc = subprocess.run([docker, "run", "--rm", "--network=none", "--entrypoint", "memshelf-bot",
                           "-v", f"{EXAMPLE}:/shelf:ro", "-v", f"{out}:/out", image, "stats", "/shelf",
                           "--png", "/out/stats.png"], capture_output=True, text=True, check=False)
    png = out / "stats.png"
    expect(proc.returncode == 0 and png.exists() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n",
           f"`stats --png` writes a PNG in the image (exit {proc.returncode}) {proc.stderr.strip()}")


def cli_in_image(docker: str, image: str, work: Path) -> None:
    """`validate`, `badge` and `render --badge` in the image, on the example shelf."""
    def bot(*args: str, volume: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([docker, "run", "--rm", "--network=none", "--entrypoint", "memshelf-bot", "-v", volume,
                               image, *args], capture_output=True, text=True, check=False)

    checked = bot("validate", "/shelf", "--format", "json", volume=f"{EXAMPLE}:/shelf:ro")
    expect(checked.returncode == 0 and json.loads(checked.stdout or "{}").get("verdict") == "valid",
           f"`validate --format json` in the image: the example shelf is valid {checked.stderr.strip()}")
    badge = bot("badge", "/shelf", "--format", "json", volume=f"{EXAMPLE}:/shelf:ro")
    expect(badge.returncode == 0 and "message" in json.loads(badge.stdout or "{}"),
           f"`badge --format json` in the image: a shields.io endpoint {badge.stderr.strip()}")
    shelf = work / "cli-shelf"
    shutil.copytree(EXAMPLE, shelf)
    rendered = bot("render", "/shelf", "--badge", volume=f"{shelf}:/shelf")
    svg = shelf / "stats.svg"
    drawn = svg.exists() and b"<svg " in svg.read_bytes() and b"<path " in svg.read_bytes()
    ok = rendered.returncode == 0 and drawn and (shelf / "INDEX.md").exists() and (shelf / "badge.svg").exists()
    expect(ok, "`render --badge` in the image writes INDEX.md, stats.svg (drawn) and badge.svg"
           + ("" if ok else f": exit {rendered.returncode}\n{rendered.stdout}{rendered.stderr}"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    """Debian's redis-server on loopback, on a free port (the App's tests use the same)."""

    def __init__(self, where: Path) -> None:
        self.url = f"redis://127.0.0.1:{free_port()}/0"
        port = self.url.rsplit(":", 1)[1].split("/")[0]
        self.proc = subprocess.Popen([str(shutil.which("redis-server")), "--bind", "127.0.0.1", "--port", port,
                                      "--save", "", "--appendonly", "no", "--dir", str(where)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", int(port)), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=30)


class AppInImage:
    """`memshelf-bot serve|worker` in the image, on the host's network, until stopped."""

    SECRET = "smoke-webhook-secret"

    def __init__(self, docker: str, image: str, command: list[str], env: dict[str, str]) -> None:
        self.docker, self.name = docker, f"memshelf-bot-smoke-{command[0]}-{os.getpid()}"
        cmd = [docker, "run", "--rm", "--name", self.name, "--network=host", "--entrypoint", "memshelf-bot"]
        for key in env:
            cmd += ["-e", key]
        self.proc = subprocess.Popen([*cmd, image, *command], env={**os.environ, **env}, text=True,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ready_url(self) -> str:
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        return line.split()[1].rstrip("/") if line.startswith("ready ") else ""

    def admin_url(self) -> str:
        """`serve` prints its admin listener (status page, metrics) right after `ready`."""
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        return line.split()[1].rstrip("/") if line.startswith("admin ") else ""

    def stop(self) -> tuple[int, str]:
        subprocess.run([self.docker, "stop", "--time", "30", self.name], capture_output=True, check=False)
        _, err = self.proc.communicate(timeout=60)
        return self.proc.returncode, err


def app_env(key_pem: str) -> dict[str, str]:
    return {"MEMSHELF_BOT_APP_ID": "42", "MEMSHELF_BOT_PRIVATE_KEY": key_pem,
            "MEMSHELF_BOT_WEBHOOK_SECRET": AppInImage.SECRET}


def signed_ping(url: str) -> int:
    body = json.dumps({"zen": "Design for failure.", "hook_id": 1}).encode()
    request = urllib.request.Request(f"{url}/webhook", data=body, method="POST", headers={
        "Content-Type": "application/json", "X-GitHub-Event": "ping", "X-GitHub-Delivery": "smoke-ping-1",
        "X-Hub-Signature-256": "sha256=" + hmac.new(AppInImage.SECRET.encode(), body, hashlib.sha256).hexdigest()})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


def app_in_image(docker: str, image: str, work: Path) -> None:
    """The App's `serve` in the image: health, metrics, status page and a signed ping; on Redis too."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    env = app_env(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                    serialization.NoEncryption()).decode("ascii"))
    queues = [("sqlite", ["--data-dir", "/data"])]
    redis = Redis(work) if shutil.which("redis-server") else None
    if redis is None:
        print("  (no redis-server on this host: the App on Redis is not run)")
    else:
        queues.append(("redis", ["--redis", redis.url]))
    try:
        for queue, args in queues:
            app = AppInImage(docker, image, ["serve", "--port", str(free_port()), "--admin-port",
                                             str(free_port()), *args], env)
            try:
                url, admin = app.ready_url(), app.admin_url()
                expect(bool(url) and bool(admin), f"`serve` on {queue} gets ready in the image")
                health = urllib.request.urlopen(f"{url}/healthz", timeout=30).status
                metrics = urllib.request.urlopen(f"{admin}/metrics", timeout=30).read()
                page = urllib.request.urlopen(f"{admin}/", timeout=30).read()
                expect(health == 200 and b"# TYPE" in metrics and b"memshelf-bot" in page
                       and signed_ping(url) in (200, 202),
                       f"`serve` on {queue}: health, Prometheus metrics, the status page and a signed ping answer")
            finally:
                code, err = app.stop()
            clean = code == 0 and "Traceback" not in err
            expect(clean, f"`serve` on {queue} stops cleanly on SIGTERM" + ("" if clean else f": {err[-2000:]}"))
        if redis is not None:
            worker = AppInImage(docker, image, ["worker", "--redis", redis.url], env)
            time.sleep(3)
            running = worker.proc.poll() is None
            code, err = worker.stop()
            clean = running and code == 0 and "Traceback" not in err
            expect(clean, "`worker` on Redis runs in the image and stops cleanly" + ("" if clean else f": {err[-2000:]}"))
    finally:
        if redis is not None:
            redis.stop()


def image_size(docker: str, image: str) -> int:
    return int(subprocess.run([docker, "image", "inspect", "--format", "{{.Size}}", image], capture_output=True,
                              text=True, check=True).stdout.strip())


def final_base() -> str:
    """The image the Dockerfile's last stage starts from."""
    froms = [line.split()[1] for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines()
             if line.split()[:1] == ["FROM"]]
    return froms[-1]


def our_layers_mb(docker: str, image: str) -> float:
    """The image less its base: what our Dockerfile adds."""
    size, base = image_size(docker, image), image_size(docker, final_base())
    print(f"image {image}: {size / 1e6:.1f} MB; base {final_base()}: {base / 1e6:.1f} MB; "
          f"our layers: {(size - base) / 1e6:.1f} MB")
    return (size - base) / 1e6


def big_shelf_pull_request(work: Path) -> tuple[Path, dict[str, Any]]:
    """A rendered 1,000-episode shelf checked out on a branch that adds one good episode, and the
    `pull_request` event for it: the run start → verdict is timed on (here and in
    bench/bench_image.py)."""
    tree = work / "big"
    subprocess.run([sys.executable, str(ROOT / "bench/gen_shelf.py"), str(tree), "--episodes", "1000", "--seed", "11"],
                   check=True, capture_output=True)
    subprocess.run([str(MEMSHELF_BOT), "render", str(tree)], check=True, capture_output=True)
    git("init", "--quiet", "--initial-branch=main", cwd=tree)
    git("add", "-A", cwd=tree)
    git("commit", "--quiet", "-m", "A big shelf, rendered", cwd=tree)
    base = git("rev-parse", "HEAD", cwd=tree)
    git("checkout", "--quiet", "-b", "shelve/one-more", cwd=tree)
    (tree / GOOD).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(FIXTURE / GOOD, tree / GOOD)
    git("add", "-A", cwd=tree)
    git("commit", "--quiet", "-m", "One more", cwd=tree)
    head = git("rev-parse", "HEAD", cwd=tree)
    return tree, pull_request_event(9, "shelve/one-more", head, base)


def start_to_verdict(runner: Runner, tree: Path, event: dict[str, Any]) -> float:
    """Wall time of one `docker run` of the Action (container start to exit with the verdict) for
    the big shelf's pull request, validate mode, no network."""
    started = time.perf_counter()
    result = runner.run(tree, "pull_request", event, network="none", mode="validate")
    elapsed = time.perf_counter() - started
    expect(result.exit_code == 0 and result.outputs["episodes"] == "1", "the 1k-shelf PR is valid", result)
    return elapsed


def start_to_verdict_on_1k_shelf(runner: Runner, work: Path) -> float:
    """Median start → verdict over a few runs, printed (bench/bench_image.py measures it apart)."""
    tree, event = big_shelf_pull_request(work)
    times = [start_to_verdict(runner, tree, event) for _ in range(TIMED_RUNS)]
    median = statistics.median(times)
    print(f"start -> verdict on a 1k shelf: median {median:.2f} s over {TIMED_RUNS} runs "
          f"({', '.join(f'{t:.2f}' for t in times)})")
    return median


def main() -> int:
    docker = os.environ.get("DOCKER", "docker")
    image = os.environ.get("IMAGE")
    if not image:
        print("smoke: IMAGE is not set (run this through the container-smoke script)", file=sys.stderr)
        return 2
    ours = our_layers_mb(docker, image)
    version = subprocess.run([docker, "run", "--rm", "--network=none", "--entrypoint", "memshelf-bot", image,
                              "--version"], capture_output=True, text=True, check=False)
    expect(version.returncode == 0 and version.stdout.startswith("memshelf-bot "),
           f"`memshelf-bot --version` runs in the image: {version.stdout.strip()}")
    work = Path(tempfile.mkdtemp(prefix="memshelf-bot-smoke-"))
    try:
        font_cache_in_image(docker, image)
        png_through_cairo(docker, image, work)
        cli_in_image(docker, image, work)
        app_in_image(docker, image, work)
        runner = Runner(work)
        bare, base = seed(work)
        pull_request_without_network(runner, work, bare, base)
        agent_push_with_sandbox(runner, work, bare, base)
        render_on_main_with_sandbox(runner, work, bare, base)
        start_to_verdict_on_1k_shelf(runner, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    expect(ours <= LAYER_BUDGET_MB, f"our layers ({ours:.1f} MB) within the {LAYER_BUDGET_MB} MB budget")
    print(f"smoke: all {runner.steps} container runs behaved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
