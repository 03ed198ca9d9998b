"""The reference tools as black-box oracles, in a virtualenv of their own.

shelf-spec 0.3.0, memshelf-mcp 0.4.0 and docshelf-mcp 0.5.0 are installed into
`<repo>/.cache/refvenv-<hash of the pins>`, created once (under a file lock, so concurrent pytest
processes build it once) and never imported into our own interpreter: their pins must not leak
into our dependencies. Every call goes through one ref-venv Python process that runs the tools'
own command-line entry points and prints one JSON line per job. That process stays up for the
whole pytest process and takes one batch per line, so the suite's hundreds of reference calls
cost one interpreter start per pytest process, not one each; it starts afresh whenever the
environment it would get has changed, and after any failure.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

PINS = ("shelf-spec==0.3.0", "memshelf-mcp==0.4.0", "docshelf-mcp==0.5.0")
REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache"
_READY = ".ready"

# Doctor findings that judge one clone (clock, upstream, working copy), the running tool itself,
# or the network — never the shelf's content (docs/reference.md §6.2 "CI?" column, §14.4).
NON_CI_CODES = frozenset({
    "derived-stale", "derived-age-unknown", "renderer-wait-unknown",
    "upstream-not-rendered", "episode-unpushed", "upstream-unknown",
    "uncommitted-split-dir", "local-split-dir",
    "not-a-release", "freshness-unknown", "served-code-differs",
    "no-remote", "remote-private", "public-remote", "remote-unverified",
})
# Large enough that `derived-stale` never fires on a freshly generated shelf; the
# docs/reference.md §14.4 test passes the reference default (24) to show what it does in CI.
NO_STALENESS_HOURS = 10**6


class RefsUnavailable(RuntimeError):
    """The reference virtualenv cannot be built because PyPI cannot be reached."""


def _venv_dir() -> Path:
    key = "\n".join((*PINS, f"{sys.version_info.major}.{sys.version_info.minor}"))
    return CACHE / f"refvenv-{hashlib.sha256(key.encode()).hexdigest()[:12]}"


def _pypi_reachable() -> bool:
    try:
        with socket.create_connection(("pypi.org", 443), timeout=5):
            return True
    except OSError:
        return False


def _build(venv: Path) -> None:
    if venv.exists():
        shutil.rmtree(venv)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    proc = subprocess.run([*pip, *PINS], capture_output=True, text=True)
    if proc.returncode != 0:
        shutil.rmtree(venv, ignore_errors=True)
        if not _pypi_reachable():
            raise RefsUnavailable("PyPI is unreachable; the reference tools cannot be installed")
        raise RuntimeError(f"installing {' '.join(PINS)} failed:\n{proc.stderr[-4000:]}")
    (venv / _READY).write_text("\n".join(PINS) + "\n", encoding="utf-8")


def ref_python() -> Path:
    """The reference virtualenv's interpreter, building the venv on first use."""
    venv = _venv_dir()
    python = venv / "bin" / "python"
    if (venv / _READY).is_file():
        return python
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / f"{venv.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not (venv / _READY).is_file():
                _build(venv)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return python


# Runs inside the reference venv. Reads one JSON list of jobs per line on stdin, prints one JSON
# object per job on stdout: the tool's parsed JSON output plus "exit"; a crash becomes exit 1 and
# "crash".
_RUNNER = r"""
import contextlib, io, json, os, sys, traceback

def run(job):
    shelf = job["shelf"]
    os.environ["GIT_CEILING_DIRECTORIES"] = os.path.dirname(os.path.abspath(shelf))
    op = job["op"]
    out = io.StringIO()
    result = {}
    try:
        with contextlib.redirect_stdout(out):
            if op == "archive":
                from memshelf_mcp.core.archive import rebuild_archive_index
                result["warnings"] = [str(w) for w in rebuild_archive_index(shelf)]
                code = 0
            elif op == "validate":
                from shelf_spec.cli import main
                code = main(["validate", shelf, "--json"])
            else:
                from memshelf_mcp.cli import main
                argv = [op, "--shelf", shelf]
                if op == "doctor":
                    argv += ["--derived-stale-hours", str(job["stale_hours"])]
                if job.get("check"):
                    argv.append("--check")
                code = main(argv)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except Exception as exc:
        code = 1
        result["crash"] = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    text = out.getvalue()
    if op != "archive":
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = {"stdout": text}
        result.update(parsed if isinstance(parsed, dict) else {"stdout": text})
    result["exit"] = int(code or 0)
    return result

for line in sys.stdin:
    for job in json.loads(line):
        sys.__stdout__.write(json.dumps(run(job), ensure_ascii=False) + "\n")
    sys.__stdout__.flush()
"""


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("MEMSHELF_", "SHELF_SPEC_", "DOCSHELF_", "PYTHON"))}
    env["PYTHONIOENCODING"] = "utf-8"
    return env


class _Runner:
    """The one reference process of this pytest process (see the module's docstring)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        # a file, not a pipe: a pipe nobody reads could fill and stall the tools; it lives as long as the process
        self.stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self.proc = subprocess.Popen([str(ref_python()), "-c", _RUNNER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.stderr, text=True, encoding="utf-8",
                                     env=env, cwd=str(CACHE))

    def run(self, jobs: list[dict]) -> list[dict]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(jobs) + "\n")
        self.proc.stdin.flush()
        results: list[dict] = []
        while len(results) < len(jobs) and (line := self.proc.stdout.readline()):
            if line.startswith("{"):
                results.append(json.loads(line))
        if len(results) != len(jobs):
            self.stop()
            self.stderr.seek(0)
            tail = self.stderr.read()[-4000:].decode("utf-8", errors="replace")
            raise RuntimeError(f"reference runner failed (exit {self.proc.returncode}):\n{tail}")
        return results

    def stop(self) -> None:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def close(self) -> None:
        self.stop()
        self.stderr.close()


_runner: _Runner | None = None


def _close_runner() -> None:
    global _runner
    if _runner is not None:
        _runner.close()
        _runner = None


atexit.register(_close_runner)


def run_jobs(jobs: list[dict], *, fresh: bool = False) -> list[dict]:
    """Run reference jobs ({"op": doctor|validate|rebuild|archive|resolve, "shelf": path, ...}) in
    the reference process (`fresh`: in a new one, used for this batch only); one result dict per
    job, in order."""
    global _runner
    if not jobs:
        return []
    jobs = [{"stale_hours": NO_STALENESS_HOURS, **job, "shelf": str(Path(job["shelf"]).resolve())} for job in jobs]
    env = _clean_env()
    if fresh:
        once = _Runner(env)
        try:
            return once.run(jobs)
        finally:
            once.close()
    if _runner is not None and (_runner.env != env or _runner.proc.poll() is not None):
        _close_runner()
    if _runner is None:
        _runner = _Runner(env)
    try:
        return _runner.run(jobs)
    except BaseException:
        _close_runner()  # a half-answered batch leaves the process out of step
        raise


def ci_errors(doctor: dict) -> list[dict]:
    """Doctor's error findings that are meaningful in CI (a crash counts as one)."""
    found = [f for f in doctor.get("findings", [])
             if f.get("level") == "error" and f.get("code") not in NON_CI_CODES]
    if "crash" in doctor:
        found.append({"level": "error", "code": "crash", "path": "", "detail": doctor["crash"]})
    return found


def _with_ci_errors(doctor: dict) -> dict:
    doctor["ci_errors"] = ci_errors(doctor)
    return doctor


def shelf_spec_validate(shelf: Path) -> dict:
    """`shelf-spec validate SHELF --json`, parsed, plus "exit"."""
    return run_jobs([{"op": "validate", "shelf": shelf}])[0]


def memshelf_doctor(shelf: Path, stale_hours: int = NO_STALENESS_HOURS) -> dict:
    """`memshelf doctor --shelf SHELF`, parsed, plus "exit" and "ci_errors"."""
    return _with_ci_errors(run_jobs([{"op": "doctor", "shelf": shelf, "stale_hours": stale_hours}])[0])


def memshelf_rebuild(shelf: Path, check: bool = False) -> dict:
    """`memshelf rebuild --shelf SHELF [--check]`, parsed, plus "exit"."""
    return run_jobs([{"op": "rebuild", "shelf": shelf, "check": check}])[0]


def archive_render(shelf: Path) -> list[str]:
    """The reference archive render (`archive/.meta.json` files and `archive/INDEX.md`); its warnings."""
    return run_jobs([{"op": "archive", "shelf": shelf}])[0]["warnings"]


def render(shelves: Iterable[Path]) -> None:
    """Write every derived file of each shelf the way the reference does: rebuild, then archive."""
    jobs = []
    for shelf in shelves:
        jobs += [{"op": "rebuild", "shelf": shelf}, {"op": "archive", "shelf": shelf}]
    for job, result in zip(jobs, run_jobs(jobs), strict=True):
        if "crash" in result:
            raise RuntimeError(f"reference {job['op']} crashed on {job['shelf']}: {result['crash']}")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Both references' answers on one shelf."""

    validate: dict
    doctor: dict

    @property
    def spec_errors(self) -> list[dict]:
        return [f for f in self.validate.get("findings", [])
                if f.get("severity") in ("error", "config-error")]

    @property
    def doctor_errors(self) -> list[dict]:
        return self.doctor["ci_errors"]

    @property
    def fails(self) -> bool:
        """Either reference reports a CI-meaningful error."""
        return self.validate.get("verdict") != "valid" or bool(self.doctor_errors)

    def summary(self) -> str:
        spec = [(f["rule"], f["path"]) for f in self.spec_errors]
        doc = [(f["code"], f.get("path", ""), f.get("detail", "")[:160]) for f in self.doctor_errors]
        return f"shelf-spec {self.validate.get('verdict')}: {spec}; doctor errors: {doc}"


def judge(shelves: Iterable[Path], *, fresh: bool = False) -> list[Verdict]:
    """shelf-spec validate and memshelf doctor on every shelf, in the reference process (`fresh`:
    a new one)."""
    shelves = list(shelves)
    jobs = []
    for shelf in shelves:
        jobs += [{"op": "validate", "shelf": shelf}, {"op": "doctor", "shelf": shelf}]
    results = run_jobs(jobs, fresh=fresh)
    return [Verdict(results[i], _with_ci_errors(results[i + 1])) for i in range(0, len(results), 2)]
