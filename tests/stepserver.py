"""A fork server for the tests' `memshelf-bot action` steps: each step still runs in a process of
its own, but that process is forked from one that has already imported the bot, instead of a
fresh `python -m bot.cli action` paying ~0.3 s of CPU for the imports (PyGithub, requests, jwt,
the core) hundreds of times a suite.

One server per pytest worker, started on the first step and ended when the worker exits. It is a
separate, single-threaded process: the worker itself is never forked (the sandbox's server
threads live there, and forking a threaded process can deadlock). The server imports modules
only, never runs them, so no GitHub or shelf state is ever inherited; the forked child then makes
itself the process the runner would have started: exactly the step's environment, its workspace
as working directory and `sys.path[0]`, stdin on /dev/null, stdout and stderr into files, the
default SIGCHLD handling, and `bot.cli` run as `__main__` the way `-m` runs it, down to the
interpreter's exit (SystemExit, an uncaught exception's traceback, non-daemon threads joined,
atexit handlers, the final flush). Steps may run at once (the render race runs twelve): the
server forks on each request and reports each exit as it comes.

`StepServer` is a runner for `memshelf_sandbox.actionrun.run_step`. It hands a step to a real
subprocess instead when the command is not the action's, when the step's environment would start
the interpreter differently (a `PYTHON*`, `LC_*` or `LANG` variable unlike the server's), or once
the server has died.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import itertools
import json
import os
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

from memshelf_sandbox.actionrun import ACTION_COMMAND, run_subprocess

# What a step's modes import, imported once by the server. `bot.cli` itself is left out: `-m`
# runs it as `__main__`, and runpy warns when the module is already loaded. `bot.app.leases`
# (read from the environment at import) is not among them, nor imported by any of them; nor is
# matplotlib (render's chart helper), which settles its config and cache directories from HOME and
# MPLCONFIGDIR when imported, and each step has its own HOME.
WARM_MODULES = (
    "runpy", "argparse", "memshelf_render.cli", "bot.app.options", "bot.action", "bot.router", "bot.adapters.pygithub",
    "bot.report.check_run", "bot.report.comment", "bot.report.review", "bot.report.sarif",
    "bot.flows.fork_comment", "github", "requests", "jwt",
)
STARTUP_PREFIXES = ("PYTHON", "LC_", "LANG")


def _startup_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables that shape the interpreter's own start (encodings, flags, paths)."""
    return {k: v for k, v in env.items() if k.startswith(STARTUP_PREFIXES)}


# --- the server process ---------------------------------------------------------------------


def _reply(fd: int, message: dict[str, Any]) -> None:
    os.write(fd, json.dumps(message).encode() + b"\n")


def _redirect(target: int, path: str, flags: int) -> None:
    fd = os.open(path, flags, 0o644)
    os.dup2(fd, target)
    os.close(fd)


def _exit_status(code: object) -> int:
    """The status the interpreter exits with for `SystemExit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _finish() -> int:
    """The interpreter's shutdown: join non-daemon threads, run atexit handlers, flush stdio."""
    status = 0
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = 120  # as Python exits when the final flush of stdout fails
    return status


def _child(request: dict[str, Any], inherited: Sequence[int]) -> None:
    """Become the step's process and run it; never returns."""
    status = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in inherited:
            os.close(fd)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        _redirect(0, os.devnull, os.O_RDONLY)
        _redirect(1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        _redirect(2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        tempfile.tempdir = None  # read from TMPDIR again, as a fresh process would
        sys.path[0] = os.getcwd()  # `-m` puts the working directory first
        sys.argv = ["-m", *request["argv"]]
        sys.modules.pop("bot.cli", None)
        try:
            runpy.run_module("bot.cli", run_name="__main__", alter_sys=True)
            status = 0
        except SystemExit as exc:
            status = _exit_status(exc.code)
        except BaseException:
            sys.excepthook(*sys.exc_info())
            status = 1
        status = _finish() or status
    finally:
        os._exit(status)


def serve(requests: int, replies: int) -> None:
    """Fork a child per request line; answer its pid at once and its exit status when it ends."""
    for name in WARM_MODULES:
        importlib.import_module(name)
    assert "bot.app.leases" not in sys.modules, "a warmed module reads the environment at import"
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    running: dict[int, int] = {}  # pid -> request id
    pending = b""
    open_requests = True
    while open_requests or running:
        readable, _, _ = select.select([wake_r] + ([requests] if open_requests else []), [], [])
        if wake_r in readable:
            os.read(wake_r, 4096)
        while running:
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            _reply(replies, {"id": running.pop(pid), "code": os.waitstatus_to_exitcode(wait_status)})
        if requests in readable:
            chunk = os.read(requests, 65536)
            if not chunk:
                open_requests = False
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                request = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    _child(request, (requests, replies, wake_r, wake_w))
                running[pid] = request["id"]
                _reply(replies, {"id": request["id"], "pid": pid})


def main() -> None:
    """Entry of the server process: requests on stdin, replies on stdout; both moved off fds
    0 and 1 so that a child's stdio is its own."""
    requests, replies = os.dup(0), os.dup(1)
    _redirect(0, os.devnull, os.O_RDONLY)
    os.dup2(2, 1)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C reaches the whole group: the worker reports it
        serve(requests, replies)


# --- the client, in the pytest worker -------------------------------------------------------


class ServerDied(RuntimeError):
    """The fork server ended while a step ran: that step's outcome is unknown."""


class StepServer:
    """A `run_step` runner: the action's command through the fork server, anything else (and
    everything once the server has died) through a real subprocess."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._base: dict[str, str] = {}
        self._dead = False
        self._ids = itertools.count(1)
        self._started: dict[int, Future[int]] = {}
        self._ended: dict[int, Future[int]] = {}
        self.forked = 0  # steps run by a forked child (the rest ran as real subprocesses)

    def __call__(self, command: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                 timeout: float) -> subprocess.CompletedProcess[str]:
        if list(command) != list(ACTION_COMMAND) or not self._ready(env):
            return run_subprocess(command, cwd=cwd, env=env, timeout=timeout)
        with tempfile.TemporaryDirectory(prefix="memshelf-bot-forked-step-") as tmp:
            out, err = Path(tmp) / "stdout", Path(tmp) / "stderr"
            request = {"argv": list(command[3:]), "env": dict(env), "cwd": str(cwd), "stdout": str(out),
                       "stderr": str(err)}
            try:
                started, ended = self._send(request)
                pid = started.result()
            except (OSError, ServerDied):  # it died before this step began: nothing ran yet
                return run_subprocess(command, cwd=cwd, env=env, timeout=timeout)
            self.forked += 1
            try:
                code = ended.result(timeout)
            except FutureTimeout:
                os.kill(pid, signal.SIGKILL)
                ended.result()
                raise subprocess.TimeoutExpired(list(command), timeout, _read(out), _read(err)) from None
            return subprocess.CompletedProcess(list(command), code, _read(out), _read(err))

    def _ready(self, env: Mapping[str, str]) -> bool:
        """The server is running (started now if need be) for a step this environment suits."""
        with self._lock:
            if self._dead:
                return False
            if self._proc is None:
                self._start(env)
            return _startup_env(env) == self._base

    def _start(self, env: Mapping[str, str]) -> None:
        base = {k: v for k, v in env.items() if not k.startswith(("INPUT_", "GITHUB_", "GIT_"))}
        self._base = _startup_env(base)
        self._proc = subprocess.Popen([sys.executable, "-m", "tests.stepserver"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, env=base, cwd=Path(__file__).resolve().parent.parent)
        threading.Thread(target=self._read_replies, name="stepserver-replies", daemon=True).start()
        atexit.register(self.close)

    def _send(self, request: dict[str, Any]) -> tuple[Future[int], Future[int]]:
        with self._lock:
            if self._dead or self._proc is None or self._proc.stdin is None:
                raise ServerDied("the step server is gone")
            request["id"] = ident = next(self._ids)
            started, ended = self._started[ident], self._ended[ident] = Future(), Future()
            self._proc.stdin.write(json.dumps(request).encode() + b"\n")
            self._proc.stdin.flush()
        return started, ended

    def _read_replies(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for line in proc.stdout:
            reply = json.loads(line)
            with self._lock:
                if "pid" in reply:
                    self._started.pop(reply["id"]).set_result(reply["pid"])
                else:
                    self._ended.pop(reply["id"]).set_result(reply["code"])
        with self._lock:
            self._dead = True
            for future in (*self._started.values(), *self._ended.values()):
                future.set_exception(ServerDied("the step server ended during a step"))
            self._started.clear()
            self._ended.clear()

    @property
    def pid(self) -> int | None:
        """The server's process id, once started."""
        return None if self._proc is None else self._proc.pid

    def close(self) -> None:
        """End the server: it finishes the steps under way and exits when its input closes."""
        with self._lock:
            proc, self._dead = self._proc, True
        if proc is not None and proc.stdin is not None and proc.poll() is None:
            proc.stdin.close()
            proc.wait(timeout=60)


def _read(path: Path) -> str:
    """A captured stream as `subprocess.run(text=True)` decodes it (locale encoding, newlines
    translated)."""
    try:
        return path.read_text(encoding=None)
    except FileNotFoundError:
        return ""


if __name__ == "__main__":
    main()
