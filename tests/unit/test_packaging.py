"""The Action's packaging: action.yml, the Dockerfile and the copy-ready workflow.

The linters run from the virtualenv (actionlint, hadolint); the rest checks that the three files
agree with the contract in PRODUCT.md, with the runtime's input table (`bot.inputs`) and with the
shelf settings' defaults, so a user who copies the workflow gets a run that starts.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from bot import inputs as runtime_inputs
from bot.action import OUTPUTS as RUNTIME_OUTPUTS
from memshelf_render.shelf import Settings

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ACTION_REF = "memshelf/memshelf-bot@v1"
# PRODUCT.md, "The Action": the inputs and outputs, in the order it lists them
PRODUCT_INPUTS = ("mode", "token", "shelf_path", "comment", "strict", "branch_patterns", "auto_merge",
                  "allow_paths", "badge", "commit_message")
PRODUCT_OUTPUTS = ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number",
                   "standing_tokens", "sarif_file")
PRODUCT_MODES = ("auto", "validate", "render", "guard", "open-pr", "resolve", "badge")


def _yaml(rel: str) -> dict[str, Any]:
    return yaml.safe_load((ROOT / rel).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def action() -> dict[str, Any]:
    return _yaml("action.yml")


@pytest.fixture(scope="module")
def workflow() -> dict[str, Any]:
    return _yaml("workflows/shelf-bot.yml")


def _triggers(workflow: dict[str, Any]) -> dict[str, Any]:
    return workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true


def _action_steps(workflow: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in workflow["jobs"].items() for step in job["steps"]
            if step.get("uses", "").startswith("memshelf/memshelf-bot@")]


def _lint(tool: str, *args: str, cwd: Path = ROOT) -> None:
    exe = BIN / tool
    if not exe.exists():
        pytest.fail(f"{tool} is not installed next to {sys.executable} (the test extras install it)")
    proc = subprocess.run([str(exe), *args], cwd=cwd, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{tool} {' '.join(args)}:\n{proc.stdout}{proc.stderr}"


# --- linters ----------------------------------------------------------------------------------


def test_workflows_pass_actionlint() -> None:
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "workflows").glob("*.yml"))
    assert files == ["workflows/shelf-bot-fork-comment.yml", "workflows/shelf-bot.yml"]
    _lint("actionlint", "-no-color", *files)


def _local_action_repo(where: Path, workflow_text: str) -> Path:
    """A git repository holding this action at its root and the workflow using it as `./`."""
    shutil.copy(ROOT / "action.yml", where / "action.yml")
    shutil.copy(ROOT / "Dockerfile", where / "Dockerfile")
    (where / ".github" / "workflows").mkdir(parents=True)
    (where / ".github" / "workflows" / "shelf-bot.yml").write_text(workflow_text.replace(ACTION_REF, "./"))
    subprocess.run(["git", "init", "--quiet", str(where)], check=True)  # actionlint looks for a repository
    return where


def test_workflow_with_this_action_passes_actionlint(tmp_path: Path) -> None:
    """actionlint reads a local action's metadata: with `uses: ./` it checks every `with:` key
    against action.yml, action.yml itself (branding icon and colour) and that the Dockerfile exists."""
    text = (ROOT / "workflows" / "shelf-bot.yml").read_text(encoding="utf-8")
    assert text.count(f"uses: {ACTION_REF}") == 5  # every job's step is checked
    _lint("actionlint", "-no-color", cwd=_local_action_repo(tmp_path, text))


def test_actionlint_catches_an_unknown_input(tmp_path: Path) -> None:
    """The check above bites: a misspelt input fails it."""
    text = (ROOT / "workflows" / "shelf-bot.yml").read_text(encoding="utf-8")
    text = text.replace("mode: ${{", "shelf-path: x\n          mode: ${{")
    proc = subprocess.run([str(BIN / "actionlint"), "-no-color"], cwd=_local_action_repo(tmp_path, text),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1
    assert 'input "shelf-path" is not defined in action "memshelf-bot"' in proc.stdout


def test_dockerfile_passes_hadolint() -> None:
    _lint("hadolint", "--no-color", "Dockerfile")


# --- action.yml -------------------------------------------------------------------------------


def test_action_inputs_and_outputs_are_the_product_contract(action: dict[str, Any]) -> None:
    assert tuple(action["inputs"]) == PRODUCT_INPUTS
    assert tuple(action["outputs"]) == PRODUCT_OUTPUTS
    for section in ("inputs", "outputs"):
        for name, spec in action[section].items():
            assert spec["description"].strip(), f"{section}.{name} has no description"
    assert all(spec["required"] is False for spec in action["inputs"].values())


def test_action_inputs_and_outputs_are_the_runtimes(action: dict[str, Any]) -> None:
    """Every input action.yml declares reaches the container as INPUT_<NAME>, and the runtime
    rejects names it does not know: the two lists must be the same; so must the outputs."""
    assert set(action["inputs"]) == set(runtime_inputs.INPUTS)
    assert tuple(action["outputs"]) == RUNTIME_OUTPUTS


def test_action_runs_the_prebuilt_image(action: dict[str, Any]) -> None:
    """The released image, not a build per job (tests/unit/test_release.py checks which one)."""
    assert action["runs"]["using"] == "docker" and action["runs"]["image"].startswith("docker://ghcr.io/")
    assert action["branding"] == {"icon": "book-open", "color": "purple"}


def test_action_defaults_are_the_runtime_defaults(action: dict[str, Any]) -> None:
    spec = action["inputs"]
    given = runtime_inputs.read({"INPUT_MODE": spec["mode"]["default"],
                                 "INPUT_SHELF_PATH": spec["shelf_path"]["default"]})
    assert (given.mode, given.shelf_path) == (runtime_inputs.Inputs().mode, runtime_inputs.Inputs().shelf_path)
    assert spec["mode"]["default"] == "auto"
    assert spec["shelf_path"]["default"] == "."
    assert spec["token"]["default"] == "${{ github.token }}"


def _shown(value: object) -> str:
    """A settings default as the input's description spells it."""
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    if isinstance(value, tuple):
        return f"`{', '.join(value)}`" if value else "none"
    return f"`{value}`"


def test_settings_inputs_leave_the_default_to_the_shelf(action: dict[str, Any]) -> None:
    """GitHub hands the container every default declared in action.yml, which would override the
    shelf's `.memshelf-bot.yml`; so an input backed by a setting declares none, and its description
    names the Settings default the runtime then applies."""
    defaults = {f.name: f.default for f in dataclasses.fields(Settings)}
    backed = {name: setting for name, setting in runtime_inputs.INPUTS.items() if setting}
    assert backed, "the runtime maps no input to a setting"
    for name, setting in backed.items():
        spec = action["inputs"][name]
        assert "default" not in spec, f"input {name} declares a default that would override {setting}"
        description = " ".join(spec["description"].split())
        assert f"Default {_shown(defaults[setting])}, or `{setting}` in `.memshelf-bot.yml`" in description, name


def test_settings_defaults_are_the_product_defaults() -> None:
    s = Settings()
    assert (s.comment, s.strict, s.auto_merge, s.badge, s.allow_paths) == ("auto", False, False, False, ())
    assert s.branch_patterns == ("shelve/**", "night-shift/**", "shift/**")
    assert s.commit_message.endswith("[skip ci]")


def test_every_mode_is_documented(action: dict[str, Any]) -> None:
    described = re.findall(r"`([a-z-]+)`", action["inputs"]["mode"]["description"])
    assert tuple(described) == PRODUCT_MODES
    assert set(runtime_inputs.MODES) <= set(PRODUCT_MODES)


# --- the copy-ready workflow ------------------------------------------------------------------


def test_workflow_triggers(workflow: dict[str, Any]) -> None:
    on = _triggers(workflow)
    assert set(on) == {"pull_request", "merge_group", "push", "issue_comment", "workflow_dispatch", "schedule"}
    assert on["merge_group"]["types"] == ["checks_requested"]
    assert on["push"]["branches"] == ["main", *Settings().branch_patterns]
    assert on["issue_comment"]["types"] == ["created"]


def test_workflow_permissions_are_per_job_and_minimal(workflow: dict[str, Any]) -> None:
    assert workflow["permissions"] == {}
    assert {name: job["permissions"] for name, job in workflow["jobs"].items()} == {
        "pull-request": {"contents": "read", "pull-requests": "write", "checks": "write", "security-events": "write"},
        "merge-queue": {"contents": "read", "statuses": "write", "checks": "write"},
        "render": {"contents": "write", "pull-requests": "write", "issues": "write"},  # the Shelf dashboard
        "agent-branch": {"contents": "write", "pull-requests": "write", "statuses": "write", "checks": "write"},
        "shelf-command": {"contents": "write", "pull-requests": "write", "issues": "write", "statuses": "write"},
    }


def test_no_checkout_keeps_credentials(workflow: dict[str, Any]) -> None:
    """The bot sends the token with each git fetch itself; nothing else in the job needs it on disk."""
    checkouts = [step for job in workflow["jobs"].values() for step in job["steps"]
                 if step.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == len(workflow["jobs"])
    assert all(step["with"]["persist-credentials"] is False for step in checkouts)


def test_the_render_is_serialized_and_never_cancelled(workflow: dict[str, Any]) -> None:
    jobs = workflow["jobs"]
    assert jobs["render"]["concurrency"] == {
        "group": "shelf-bot-render-${{ github.repository }}-${{ github.ref }}",
        "cancel-in-progress": False,
    }
    assert [name for name, job in jobs.items() if "concurrency" in job] == ["pull-request", "render"]


def test_each_event_runs_its_job(workflow: dict[str, Any]) -> None:
    guards = {name: " ".join(job["if"].split()) for name, job in workflow["jobs"].items()}
    assert guards == {
        "pull-request": "github.event_name == 'pull_request'",
        "merge-queue": "github.event_name == 'merge_group'",
        "render": "(github.event_name == 'push' && github.ref_name == github.event.repository.default_branch) "
                  "|| github.event_name == 'workflow_dispatch' || github.event_name == 'schedule'",
        "agent-branch": "github.event_name == 'push' && !github.event.deleted "
                        "&& github.ref_name != github.event.repository.default_branch",
        "shelf-command": "github.event_name == 'issue_comment' && (github.event.issue.pull_request "
                         "|| contains(github.event.issue.labels.*.name, 'shelf:dashboard')) "
                         "&& startsWith(github.event.comment.body, '/shelf') && github.event.comment.user.type != 'Bot'",
    }


def test_workflow_uses_this_action_with_modes_the_runtime_runs(workflow: dict[str, Any],
                                                                action: dict[str, Any]) -> None:
    steps = _action_steps(workflow)
    assert [name for name, _ in steps] == ["pull-request", "merge-queue", "render", "agent-branch", "shelf-command"]
    for name, step in steps:
        assert step["uses"] == ACTION_REF
        assert set(step.get("with", {})) <= set(action["inputs"]), name
    # `mode: auto` (the default) everywhere; a manual run picks render or validate, a scheduled one renders
    assert {name: step.get("with", {}).get("mode") for name, step in steps} == {
        "pull-request": None, "merge-queue": None,
        "render": "${{ inputs.mode || (github.event_name == 'schedule' && 'render') || 'auto' }}",
        "agent-branch": None, "shelf-command": None}
    dispatch = _triggers(workflow)["workflow_dispatch"]["inputs"]["mode"]
    assert dispatch["options"] == ["render", "validate"] and dispatch["default"] == "render"
    assert set(dispatch["options"]) <= set(runtime_inputs.MODES)


def test_readme_names_the_same_action_and_workflow() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"uses: {ACTION_REF}" in readme
    assert "workflows/shelf-bot.yml" in readme
    assert set(re.findall(r"uses: ([\w-]+/memshelf-bot@\w+)", readme)) == {ACTION_REF}


# --- the image --------------------------------------------------------------------------------


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, argument) pairs of the Dockerfile, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    text = re.sub(r"\\\n", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#")))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1].strip()) for line in text.splitlines()
            if line.strip()]


def test_dockerfile_shape() -> None:
    steps = _instructions()
    kinds = [kind for kind, _ in steps]
    assert steps[0] == ("FROM", "python:3.12-slim AS build")
    assert [arg for kind, arg in steps if kind == "FROM"] == ["python:3.12-slim AS build", "python:3.12-slim"]
    assert ("COPY", "--from=build /opt/memshelf-bot /opt/memshelf-bot") in steps
    assert "USER" not in kinds and "WORKDIR" not in kinds  # GitHub runs it as root in /github/workspace
    assert steps[-1] == ("ENTRYPOINT", '["memshelf-bot", "action"]')
    runs = " ".join(arg for kind, arg in steps if kind == "RUN")
    assert "--no-install-recommends" in runs and "rm -rf /var/lib/apt/lists/*" in runs
    assert re.search(r"apt-get install [^&]*\bgit\b[^&]*\blibcairo2\b", runs)
    assert "pip install --no-cache-dir" in runs and "pip check" in runs
    env = " ".join(arg for kind, arg in steps if kind == "ENV")
    assert re.search(r"MPLCONFIGDIR=/opt/\S+", env)
    assert re.search(r"import [^\"]*\bmatplotlib\.font_manager\b", runs)  # the font cache is built into the image
    # what the image keeps is derived: traced over every flow, pruned, and every flow run again on the rest
    trace = runs.index("scripts/image_keep.py trace trace.log -- \"$PY\" -I scripts/image_flows.py example-shelf")
    prune = runs.index("scripts/image_keep.py prune \"$SITE\" trace.log --whole memshelf-bot")
    assert trace < prune < runs.rindex("\"$PY\" -I scripts/image_flows.py example-shelf")
    assert "rm -rf" not in runs[:prune].split("apt-get update", 1)[-1]  # no hand-kept deletions beside it
    # the standard library's modules the flows loaded are compiled in the final stage (the base has no byte-code)
    assert runs.index("scripts/image_keep.py sources trace.log") < runs.index("compileall -q -i /opt/memshelf-bot/")
    assert "PYTHONDONTWRITEBYTECODE=1" in env


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and name and version, f"constraints.txt: not an exact pin: {line!r}"
            pins[name] = version
    return pins


def test_constraints_pin_every_runtime_dependency_within_pyproject() -> None:
    pins = _pins()
    assert list(pins) == sorted(pins)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for requirement in map(Requirement, project["dependencies"]):
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        assert name in pins, f"{name} is not pinned in constraints.txt"
        assert requirement.specifier.contains(pins[name]), f"{name}=={pins[name]} is outside {requirement}"
    test_only = {re.sub(r"[-_.]+", "-", Requirement(r).name).lower() for r in project["optional-dependencies"]["test"]}
    assert not test_only & set(pins), "test tools must not reach the image"


def test_build_context_holds_only_what_pip_needs() -> None:
    lines = [line for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
             if line and not line.startswith("#")]
    assert lines[0] == "*"
    assert {line[1:].rstrip("/") for line in lines if line.startswith("!")} == {
        "constraints.txt", "pyproject.toml", "README.md", "LICENSE", "memshelf_render", "bot",
        "scripts/image_keep.py", "scripts/image_flows.py", "memshelf_sandbox/data/example-shelf"}


# --- what the image keeps (scripts/image_keep.py) ----------------------------------------------


@pytest.fixture(scope="module")
def keep() -> ModuleType:
    spec = importlib.util.spec_from_file_location("image_keep", ROOT / "scripts" / "image_keep.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SITE = Path("/venv/lib/python3.12/site-packages")


def test_a_trace_names_the_files_under_site_packages(keep: ModuleType) -> None:
    lines = ["open\t/venv/lib/python3.12/site-packages/pkg/__pycache__/a.cpython-312.pyc",
             "import\t/venv/lib/python3.12/site-packages/pkg/_speed.cpython-312-x86_64-linux-gnu.so",
             "open\t/venv/lib/python3.12/site-packages/pkg/data/font.ttf",
             "open\t/usr/local/lib/python3.12/json/__init__.py",  # the standard library is not ours to prune
             "open\t/venv/lib/python3.12/site-packages-other/x.py"]
    assert keep.traced_files(lines, SITE) == {"pkg/__pycache__/a.cpython-312.pyc",
                                              "pkg/_speed.cpython-312-x86_64-linux-gnu.so", "pkg/data/font.ttf"}


def test_linked_libraries_are_the_vendored_ones_ldd_resolves(keep: ModuleType) -> None:
    ldd = ("\tlinux-vdso.so.1 (0x00007ffd)\n"
           "\tlibopenblas-r0.so => /venv/lib/python3.12/site-packages/numpy/_core/../../numpy.libs/libopenblas-r0.so"
           " (0x00007f1)\n"
           "\tlibm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007f2)\n"
           "\tlibgone.so => not found\n")
    assert keep.linked_libraries(ldd, SITE) == {"numpy.libs/libopenblas-r0.so"}


def test_what_is_deleted_is_everything_the_trace_did_not_load(keep: ModuleType) -> None:
    files = ["pkg/__init__.py", "pkg/__pycache__/__init__.cpython-312.pyc",
             "pkg/a.py", "pkg/__pycache__/a.cpython-312.pyc",  # loaded as byte-code: its source stays
             "pkg/b.py", "pkg/__pycache__/b.cpython-312.pyc",  # never imported
             "pkg/data/font.ttf", "pkg/data/other.ttf", "pkg/data/LICENSE_FONT", "pkg/COPYING.txt",
             "pkg/_speed.cpython-312-x86_64-linux-gnu.so", "pkg/_slow.cpython-312-x86_64-linux-gnu.so",
             "pkg.libs/libz-1.so", "pkg.libs/libpng-2.so",
             "pkg-1.0.dist-info/METADATA", "pkg-1.0.dist-info/licenses/LICENSE", "pkg-1.0.dist-info/RECORD",
             "ours/__init__.py", "ours/cmd.py", "setuptools.pth", "pkg/nested.pth"]
    kept = {"pkg/__pycache__/__init__.cpython-312.pyc", "pkg/__pycache__/a.cpython-312.pyc", "pkg/data/font.ttf",
            "pkg/_speed.cpython-312-x86_64-linux-gnu.so", "pkg.libs/libz-1.so"}
    assert keep.to_delete(files, kept, {"ours/__init__.py", "ours/cmd.py"}) == [
        "pkg-1.0.dist-info/RECORD", "pkg.libs/libpng-2.so", "pkg/__pycache__/b.cpython-312.pyc",
        "pkg/_slow.cpython-312-x86_64-linux-gnu.so", "pkg/b.py", "pkg/data/other.ttf", "pkg/nested.pth"]


def test_trace_and_prune_keep_what_a_forked_child_loads(keep: ModuleType, tmp_path: Path) -> None:
    """The real hook: a command that imports one module, reads a data file and forks a child that
    imports another; the prune keeps those (source and byte-code), drops the unused module and file."""
    site = tmp_path / "site"
    pkg = site / "pkg"
    (pkg / "data").mkdir(parents=True)
    for name in ("__init__", "a", "b", "unused"):
        (pkg / f"{name}.py").write_text(f"NAME = {name!r}\n", encoding="utf-8")
    (pkg / "data" / "used.txt").write_text("read\n", encoding="utf-8")
    (pkg / "data" / "spare.txt").write_text("never read\n", encoding="utf-8")
    compileall = subprocess.run([sys.executable, "-m", "compileall", "-q", str(site)], check=False)
    assert compileall.returncode == 0
    program = ("import os, sys; sys.path.insert(0, sys.argv[1]); import pkg.a, importlib.resources as r; "
               "r.files('pkg').joinpath('data/used.txt').read_text(); pid = os.fork(); "
               "pid or (__import__('pkg.b'), os._exit(0)); os.waitpid(pid, 0)")
    trace = tmp_path / "trace"
    assert keep.main(["trace", str(trace), "--", sys.executable, "-c", program, str(site)]) == 0
    assert keep.main(["prune", str(site), str(trace)]) == 0
    left = sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.is_file())
    tag = sys.implementation.cache_tag
    assert left == sorted(["pkg/data/used.txt", *(f"pkg/{m}.py" for m in ("__init__", "a", "b")),
                           *(f"pkg/__pycache__/{m}.{tag}.pyc" for m in ("__init__", "a", "b"))])


def test_the_standard_library_sources_a_trace_loaded_start_up_included(keep: ModuleType, tmp_path: Path) -> None:
    """What the final stage compiles: the standard library's modules the traced process imported,
    those imported before the hook (`encodings`, at start-up) among them, and no other."""
    stdlib = Path(sysconfig.get_path("stdlib")).resolve()
    trace = tmp_path / "trace"
    assert keep.main(["trace", str(trace), "--", sys.executable, "-c", "import json"]) == 0
    sources = keep.loaded_sources(trace.read_text(encoding="utf-8").splitlines(), stdlib)
    assert {str(stdlib / "json" / "__init__.py"), str(stdlib / "encodings" / "__init__.py")} <= set(sources)
    assert str(stdlib / "xmlrpc" / "client.py") not in sources
    assert all(path.startswith(f"{stdlib}/") and path.endswith(".py") for path in sources)


@pytest.mark.e2e
def test_the_flows_the_image_is_derived_from_run_here(tmp_path: Path) -> None:
    """scripts/image_flows.py is what the image keeps its files by: a flag or a flow changed
    without it fails here, not first in a container build."""
    shelf = ROOT / "memshelf_sandbox" / "data" / "example-shelf"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "MEMSHELF_BOT_"))}
    proc = subprocess.run([sys.executable, "-I", str(ROOT / "scripts" / "image_flows.py"), str(shelf)],
                          env=env | {"MPLCONFIGDIR": str(tmp_path / "mpl"), "TMPDIR": str(tmp_path)},
                          capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0 and proc.stdout.endswith("image_flows: every flow ran\n"), proc.stdout + proc.stderr

