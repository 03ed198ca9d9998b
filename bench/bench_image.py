"""The Action image: start → verdict on a 1k shelf, step by step, and the size of our layers.

Run through the shared container-smoke script, which builds the Dockerfile and exports IMAGE and
DOCKER (the same way `tests/container/smoke.py` runs):

    bash container-smoke.sh . .venv/bin/python bench/bench_image.py [--runs 7] [--image OTHER ...]

Each round runs, for each image in turn (IMAGE first, then every `--image`, so images built from
two versions alternate and see the same load), one `docker run --rm --network=none` per step:

- `container`: `/bin/true` as the entrypoint — the container's start and teardown alone;
- `python`: `python -c pass` — plus the interpreter's start (the venv's `site`);
- `version`: `memshelf-bot --version` — plus the console script;
- `imports`: `python -c 'import bot.action'` — plus the Action's door and validate's flow;
- `verdict`: the Action itself, as `tests/container/smoke.py` times it: a pull request adding one
  episode to a rendered 1,000-episode shelf, `mode: validate`, the runner's mounts and `INPUT_*`.

Then, per image, the CPU time of the Action's processes inside the container (user + sys of
`memshelf-bot action` and the git it runs), which a loaded machine disturbs far less than the wall
times. It prints the median of each step per image (and the spread), the load average before and after,
how many modules a verdict run compiled from source instead of loading bytecode (`python -v`:
stale or missing `.pyc` cost every start, since a container never keeps what it writes), and each
of our layers (the image's history above its base's) with its size and the total the smoke test
budgets.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.container import smoke

STEPS = ("container", "python", "version", "imports", "verdict")


def docker_run(docker: str, image: str, entrypoint: str, *args: str) -> float:
    cmd = [docker, "run", "--rm", "--network=none", "--entrypoint", entrypoint, image, *args]
    started = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"bench_image: {' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr}")
    return elapsed


def step(name: str, docker: str, runner: smoke.Runner, tree: Path, event: dict) -> float:
    image = runner.image
    if name == "container":
        return docker_run(docker, image, "/bin/true")
    if name == "python":
        return docker_run(docker, image, "python", "-c", "pass")
    if name == "version":
        return docker_run(docker, image, "memshelf-bot", "--version")
    if name == "imports":
        return docker_run(docker, image, "python", "-c", "import bot.action")
    with contextlib.redirect_stdout(io.StringIO()):  # the runner's "ok:" lines
        return smoke.start_to_verdict(runner, tree, event)


CPU_PROBE = ("import resource, subprocess, sys; code = subprocess.call(['memshelf-bot', 'action']); "
             "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
             "print(f'bench-cpu {r.ru_utime + r.ru_stime:.4f}', file=sys.stderr); sys.exit(code)")


def verdict_cpu(runner: smoke.Runner, tree: Path, event: dict) -> float:
    """CPU seconds of one verdict run's processes inside the container."""
    with contextlib.redirect_stdout(io.StringIO()):
        result = runner.run(tree, "pull_request", event, network="none", mode="validate",
                            entrypoint=("python", "-c", CPU_PROBE))
    found = re.search(r"^bench-cpu (\S+)$", result.stderr, re.MULTILINE)
    if result.exit_code != 0 or found is None:
        raise SystemExit(f"bench_image: the CPU probe failed (exit {result.exit_code})\n{result.stderr}")
    return float(found[1])


def compiled_from_source(runner: smoke.Runner, tree: Path, event: dict) -> tuple[int, list[str]]:
    """One verdict run under `python -v`: how many modules came from bytecode, and the sources
    compiled instead (bytecode missing, stale, or for another Python)."""
    os.environ["PYTHONVERBOSE"] = "1"
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            result = runner.run(tree, "pull_request", event, network="none", mode="validate",
                                pass_env=("PYTHONVERBOSE",))
    finally:
        del os.environ["PYTHONVERBOSE"]
    from_pyc = re.findall(r"^# code object from '", result.stderr, re.MULTILINE)
    from_source = re.findall(r"^# code object from ([^'\s]\S*)", result.stderr, re.MULTILINE)
    return len(from_pyc), from_source


def layers(docker: str, image: str) -> list[tuple[int, str]]:
    """Our layers, newest first: the image's history less its base's."""
    def history(name: str) -> list[tuple[int, str]]:
        out = subprocess.run([docker, "history", "--no-trunc", "--human=false", "--format",
                              "{{.Size}}\t{{.CreatedBy}}", name], capture_output=True, text=True, check=True).stdout
        return [(int(size), created) for size, _, created in (line.partition("\t") for line in out.splitlines())]

    ours, base = history(image), history(smoke.final_base())
    return ours[:len(ours) - len(base)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="rounds (default 7)")
    parser.add_argument("--image", action="append", default=[], help="another image to alternate with IMAGE")
    args = parser.parse_args(argv)
    docker, first = os.environ.get("DOCKER", "docker"), os.environ.get("IMAGE")
    if not first:
        print("bench_image: IMAGE is not set (run this through the container-smoke script)", file=sys.stderr)
        return 2
    images = [first, *args.image]
    with tempfile.TemporaryDirectory(prefix="bench-image-") as tmp:
        work = Path(tmp)
        tree, event = smoke.big_shelf_pull_request(work)
        runners = {}
        for n, image in enumerate(images):
            (work / f"runner-{n}").mkdir()
            runners[image] = runner = smoke.Runner(work / f"runner-{n}")
            runner.image = image
            step("verdict", docker, runner, tree, event)  # untimed: the shelf's files in the page cache
        print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        times: dict[str, dict[str, list[float]]] = {image: {name: [] for name in STEPS} for image in images}
        for _ in range(args.runs):
            for image in images:
                for name in STEPS:
                    times[image][name].append(step(name, docker, runners[image], tree, event))
        print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"\nmedian of {args.runs} runs, seconds (min–max); each step includes the ones above it")
        print(f"{'image':<28}" + "".join(f"{name:>20}" for name in STEPS))
        for image in images:
            cells = (f"{statistics.median(t):.3f} ({min(t):.2f}–{max(t):.2f})" for t in times[image].values())
            print(f"{image:<28}" + "".join(f"{cell:>20}" for cell in cells))
        cpu = {image: [] for image in images}
        for _ in range(args.runs):
            for image in images:
                cpu[image].append(verdict_cpu(runners[image], tree, event))
        print(f"\nCPU of the Action's processes in a verdict run, median of {args.runs} (min–max)")
        for image in images:
            print(f"{image:<28}{statistics.median(cpu[image]):>8.3f} s ({min(cpu[image]):.3f}–{max(cpu[image]):.3f})")
        for image in images:
            from_pyc, compiled = compiled_from_source(runners[image], tree, event)
            print(f"\n{image}: a verdict run loaded {from_pyc} modules from bytecode and compiled {len(compiled)} "
                  f"from source{': ' + ', '.join(compiled[:6]) if compiled else ''}{' …' if len(compiled) > 6 else ''}")
            ours = layers(docker, image)
            for size, created in ours:
                print(f"  {size / 1e6:8.1f} MB  {' '.join(created.split())[:100]}")
            print(f"  {sum(size for size, _ in ours) / 1e6:8.1f} MB  our layers (budget {smoke.LAYER_BUDGET_MB} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
