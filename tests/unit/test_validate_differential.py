"""`memshelf-bot validate` against the reference validators as black boxes.

The invariant (PRODUCT.md): memshelf-bot clean ⇒ `shelf-spec validate` valid AND `memshelf
doctor` free of CI-meaningful errors. Proven on seeded shelves (tests/shelfgen.py): clean ones in
every link mode, and one-defect mutations of them — wherever either reference reports an error we
must report violations, and we must report the mutation's own codes. Where we deliberately differ
from the references (docs/reference.md §13/§14, docs/format.md, PRODUCT "beyond the references"), a named
test below shows both sides.

Our validate runs as a subprocess: the real CLI for single cases, and one interpreter running the
CLI's `main` over many shelves for the sweeps (hundreds of process starts would dominate).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from bench.shapes import SHAPES, build_shelf
from memshelf_render.catalog import RULES
from memshelf_render.findings import Severity
from tests import refs
from tests.shelfgen import DERIVED_MUTATIONS, LINK_MODES, MUTATIONS, Mutation, generate_shelf

REPO = Path(__file__).resolve().parents[2]
CLEAN_SEEDS = (1, 2, 3)
SWEEP_SEED = 21
MORE_SEEDS = (22,)  # with SWEEP_SEED, every mutation on two shelves of different shape
# What an unrendered shelf has by definition: no ledger and no INDEX yet.
LAG = {"ledger-missing", "index-missing"}
# Shapes of the secrets the mutations plant; none may ever appear in our output (PRODUCT.md).
SECRET_SHAPES = re.compile(r"AKIA[0-9A-Z]{16}|squ_[0-9a-f]{40}|ghp_[A-Za-z0-9]{36}|Bearer [a-z0-9]{16,}"
                           r"|PASSWORD=[a-z0-9]{20}")
# Mutations where a reference fails and we deliberately do not (each has a named test below).
TOLERATED = {
    "bom": "docs/reference.md §2.1/§13, docs/format.md §2: a BOM is stripped and warned "
           "(test_s2_1_s13_bom_is_stripped_and_warned)",
}

_BATCH = r"""
import contextlib, io, json, sys, traceback
from bot.cli import main
for path in json.load(sys.stdin):
    out = io.StringIO()
    result = {}
    try:
        with contextlib.redirect_stdout(out):
            code = main(["validate", path, "--format", "json"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 2
    except Exception:
        code, result["crash"] = -1, traceback.format_exc()
    raw = out.getvalue()
    try:
        result.update(json.loads(raw))
    except ValueError:
        result.setdefault("crash", "not JSON: " + raw[-2000:])
    result["exit"], result["raw"] = code, raw
    sys.__stdout__.write(json.dumps(result) + "\n")
"""


def validate(shelf: Path, *args: str) -> dict:
    """`memshelf-bot validate SHELF --format json`, parsed, plus "exit", "raw" and "stderr"."""
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "validate", str(shelf), "--format", "json", *args],
                          capture_output=True, text=True, cwd=REPO)
    result = json.loads(proc.stdout)
    result.update(exit=proc.returncode, raw=proc.stdout, stderr=proc.stderr)
    return result


def validate_many(shelves: list[Path]) -> list[dict]:
    """The same as `validate` for each shelf, in one subprocess."""
    proc = subprocess.run([sys.executable, "-c", _BATCH], input=json.dumps([str(s) for s in shelves]),
                          capture_output=True, text=True, cwd=REPO)
    results = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    assert proc.returncode == 0 and len(results) == len(shelves), proc.stderr[-4000:]
    return results


def codes(result: dict) -> set[str]:
    return {f["code"] for f in result.get("findings", [])}


def found(result: dict, code: str) -> list[dict]:
    return [f for f in result["findings"] if f["code"] == code]


def ref_rules(verdict: refs.Verdict) -> set[tuple[str, str, str]]:
    """(rule, severity, path) of shelf-spec's findings, infos and index lag left out."""
    return {(f["rule"], f["severity"], f["path"]) for f in verdict.validate["findings"]
            if f["severity"] != "info" and f["rule"] != "stale-index"}


def doctor_codes(verdict: refs.Verdict) -> set[tuple[str, str, str]]:
    """(code, level, path) of doctor's errors and warnings, the expected ledger/INDEX lag left out."""
    return {(f["code"], f["level"], f["path"]) for f in verdict.doctor.get("findings", [])
            if f["level"] in ("error", "warning") and f["code"] not in ("no-ledger-row", "stale-index")}


def line_of(root: Path, rel: str, prefix: str) -> int:
    lines = (root / rel).read_bytes().decode("utf-8", errors="replace").split("\n")
    return next(i for i, x in enumerate(lines, 1) if x.startswith(prefix))


# --- the benchmark's shapes --------------------------------------------------------------------

# One match of each kind of rule in the `many-policy` shape's pack (bench/shapes.py).
PLANTED = ("Badge XYZ1234567Q at the door", "ticket TKT-123456 closed", "db-3.prod.internal answered",
           "Operation\tKestrel resumes", "org_0123456789abcdef rotated", "osprey-key-0123456789abcdef01234567",
           "mail to a.b@payroll.corp.example.com", "/srv/dmz/secrets/tls.key", "call +44 207 946 0958",
           "card 4111 1111 1111 1111", "vm-lab-0042 drained", "SEC_TOK_abcdefghij0123456789")


@pytest.fixture(scope="module")
def shapes(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A small rendered instance of every benchmark shape, and the `many-policy` one with one
    match of each kind of its rules planted in an episode; both references and ours on each."""
    base = tmp_path_factory.mktemp("shapes")
    cases = {shape: build_shelf(base / shape, shape, 40, seed=7, derived=True) for shape in SHAPES}
    planted = build_shelf(base / "planted", "many-policy", 40, seed=7, derived=True)
    episode = sorted((planted / "docs" / "topics").glob("*.md"))[3]
    with episode.open("a", encoding="utf-8") as fh:
        fh.write("\n" + "\n".join(f"- {line}" for line in PLANTED) + "\n")
    cases["planted"] = planted
    roots = list(cases.values())
    return dict(zip(cases, zip(refs.judge(roots), validate_many(roots), strict=True), strict=True))


@pytest.mark.parametrize("shape", SHAPES)
def test_bench_shape_is_valid_for_both(shapes: dict, shape: str) -> None:
    """Every benchmark shape is a valid shelf for the references and for us (issue 22: measure
    on valid shelves; `late-grounding` warns by design)."""
    ref, ours = shapes[shape]
    assert not ref.fails, ref.summary()
    assert "crash" not in ours, ours["crash"]
    assert ours["verdict"] == "valid" and ours["counts"]["error"] == 0, ours["findings"]


def test_many_policy_rules_match_as_the_reference_matches(shapes: dict) -> None:
    """The eighty-rule pack: the planted lines match the same rules for us and for doctor (a line
    may match two rules), at least one each."""
    ref, ours = shapes["planted"]
    at_rest = [f for f in ref.doctor_errors if f["code"] == "policy-pattern-at-rest"]
    assert len(at_rest) == 1, ref.summary()
    kinds = set(re.findall(r"([a-z0-9-]+)×1", at_rest[0]["detail"]))
    ours_kinds = {re.search(r"policy rule '([^']+)'", f["message"]).group(1)
                  for f in found(ours, "policy-pattern-match")}
    assert len(kinds) >= len(PLANTED) and ours_kinds == kinds, (kinds, ours_kinds)


# --- clean shelves -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clean(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = tmp_path_factory.mktemp("clean")
    cases = {}
    for seed in CLEAN_SEEDS:
        for mode in LINK_MODES:
            for rendered in (False, True):
                cases[(seed, mode, rendered)] = generate_shelf(
                    base / f"{seed}-{mode}-{rendered}", seed=seed, link_mode=mode, derived=rendered).root
    roots = list(cases.values())
    return dict(zip(cases, zip(refs.judge(roots), validate_many(roots), strict=True), strict=True))


@pytest.mark.parametrize("rendered", [False, True], ids=["unrendered", "rendered"])
@pytest.mark.parametrize("mode", LINK_MODES)
@pytest.mark.parametrize("seed", CLEAN_SEEDS)
def test_clean_shelf_is_valid(clean: dict, seed: int, mode: str, rendered: bool) -> None:
    ref, ours = clean[(seed, mode, rendered)]
    assert not ref.fails, ref.summary()
    assert "crash" not in ours, ours["crash"]
    assert ours["verdict"] == "valid" and ours["exit"] == 0 and ours["counts"]["error"] == 0, ours["findings"]
    if rendered:
        assert ours["findings"] == []
    else:
        assert codes(ours) <= LAG


def test_cli_contract_on_a_clean_rendered_shelf(ref_venv: Path, tmp_path: Path) -> None:
    root = generate_shelf(tmp_path / "s", seed=2, link_mode="github", derived=True).root
    ours = validate(root)
    assert ours["exit"] == 0 and ours["stderr"] == ""
    assert list(ours)[:5] == ["tool", "version", "verdict", "counts", "findings"]
    assert ours["tool"] == "memshelf-bot" and ours["verdict"] == "valid"
    assert ours["counts"] == {"error": 0, "warning": 0, "info": 0} and ours["findings"] == []


def test_batch_runner_answers_like_the_cli(tmp_path: Path) -> None:
    root = generate_shelf(tmp_path / "s", seed=3, episodes=24, archive=2).root
    MUTATIONS["digest-we"](root, random.Random(3))
    single, batch = validate(root), validate_many([root])[0]
    for key in ("verdict", "counts", "findings", "exit", "raw"):
        assert single[key] == batch[key], key


def test_reference_batch_answers_like_single_runs(ref_venv: Path, tmp_path: Path) -> None:
    """One reference process judges many shelves (and stays up for every later call): no state may
    carry over between them, so its answers are those of a process of their own per shelf."""
    roots = []
    for name in ("digest-we", "secret-aws-in-body", "tags-scalar"):
        root = generate_shelf(tmp_path / name, seed=4, episodes=24, archive=2).root
        MUTATIONS[name](root, random.Random(4))
        roots.append(root)
    batch = refs.judge([roots[0], *roots, roots[0]])
    singles = [refs.judge([r], fresh=True)[0] for r in roots]
    assert [(v.validate, v.doctor) for v in batch[1:4]] == [(v.validate, v.doctor) for v in singles]
    assert (batch[0].validate, batch[0].doctor) == (batch[4].validate, batch[4].doctor)
    assert all(v.fails for v in singles)


# --- one defect at a time ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Case:
    seed: int
    mutation: Mutation
    ref: refs.Verdict
    ours: dict


def sweep(seeds: tuple[int, ...], base: Path) -> dict[tuple[int, str], Case]:
    """Every mutation on a copy of a fresh shelf per seed (rendered for the derived-file ones)."""
    applied: list[tuple[int, Mutation, Path]] = []
    for seed in seeds:
        plain = generate_shelf(base / f"plain-{seed}", seed=seed, episodes=24, archive=4).root
        rendered = generate_shelf(base / f"rendered-{seed}", seed=seed, episodes=24, archive=4, derived=True).root
        for name, apply in MUTATIONS.items():
            dst = base / f"{name}-{seed}"
            shutil.copytree(rendered if name in DERIVED_MUTATIONS else plain, dst, symlinks=True)
            applied.append((seed, apply(dst, random.Random(seed)), dst))
    roots = [dst for _, _, dst in applied]
    return {(seed, m.name): Case(seed, m, ref, ours) for (seed, m, _), ref, ours
            in zip(applied, refs.judge(roots), validate_many(roots), strict=True)}


def check(case: Case) -> None:
    m, ref, ours = case.mutation, case.ref, case.ours
    where = f"{m.name} (seed {case.seed}, {m.path}); references: {ref.summary()}"
    assert "crash" not in ours, f"{where}\n{ours['crash']}"
    assert set(m.expects) <= codes(ours), f"{where}: expected {m.expects}, got {ours['findings']}"
    assert any(f["code"] in m.expects and f["path"] == m.path for f in ours["findings"]), \
        f"{where}: not reported at {m.path}: {ours['findings']}"
    assert ours["exit"] == {"valid": 0, "violations": 1, "config-error": 2}[ours["verdict"]], where
    if ref.fails and m.name not in TOLERATED:
        assert ours["verdict"] in ("violations", "config-error"), f"{where}: we said valid"
    rules = [RULES[c] for c in m.expects]
    if any(r.scope == "config" for r in rules):
        assert ours["verdict"] == "config-error", where
    elif any(r.severity is Severity.ERROR for r in rules):
        assert ours["verdict"] == "violations", where
    elif not ref.fails:
        assert ours["verdict"] == "valid", f"{where}: a warning-level defect made errors: {ours['findings']}"
    assert not SECRET_SHAPES.search(ours["raw"]), f"{where}: a secret is echoed"


@pytest.fixture(scope="module")
def sweep_one(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return sweep((SWEEP_SEED,), tmp_path_factory.mktemp("sweep"))


@pytest.fixture(scope="module")
def sweep_more(ref_venv: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return sweep(MORE_SEEDS, tmp_path_factory.mktemp("sweep-more"))


@pytest.mark.parametrize("name", list(MUTATIONS))
def test_mutation(sweep_one: dict, name: str) -> None:
    check(sweep_one[(SWEEP_SEED, name)])


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MUTATIONS))
@pytest.mark.parametrize("seed", MORE_SEEDS)
def test_mutation_more_seeds(sweep_more: dict, seed: int, name: str) -> None:
    check(sweep_more[(seed, name)])


def test_references_fail_on_most_mutations(sweep_one: dict) -> None:
    """The sweep is only a proof if the oracles actually object to the defects."""
    failing = sorted(name for (_, name), case in sweep_one.items() if case.ref.fails)
    assert len(failing) >= 40, failing


# Where our finding names a shelf-spec rule that shelf-spec does not report at that path, on
# purpose: it does not know fenced code (docs/reference.md §2.5), and it flags a different file of a duplicate-title
# pair (its own iteration order, not path order).
SPEC_RULE_NOT_AT_PATH = {"code-fence-unclosed", "heading-only-in-fence", "duplicate-title"}


def test_spec_rule_is_what_shelf_spec_reports(sweep_one: dict) -> None:
    """Issue 8 item 10: a finding's `spec_rule` is the rule shelf-spec itself reports for that
    defect (an empty `kind` is episode-frontmatter-invalid, not episode-kind-unknown)."""
    wrong = []
    for (_, name), case in sorted(sweep_one.items()):
        theirs = {f["rule"] for f in case.ref.validate["findings"] if f["path"] == case.mutation.path}
        for f in case.ours.get("findings", []):
            if f["code"] not in case.mutation.expects or f["path"] != case.mutation.path:
                continue
            if f["spec_rule"] is not None and f["spec_rule"] not in theirs and name not in SPEC_RULE_NOT_AT_PATH:
                wrong.append((name, f["code"], f["spec_rule"], sorted(theirs)))
    assert wrong == []
    kind_empty = sweep_one[(SWEEP_SEED, "kind-empty")]
    assert {f["spec_rule"] for f in found(kind_empty.ours, "kind-empty")} == {"episode-frontmatter-invalid"}
    assert "episode-frontmatter-invalid" in {f["rule"] for f in kind_empty.ref.validate["findings"]}


# --- deliberate differences --------------------------------------------------------------------


def mutated(tmp_path: Path, name: str, *, seed: int = 5, rendered: bool = False) -> tuple[Path, Mutation]:
    root = generate_shelf(tmp_path / "shelf", seed=seed, episodes=24, archive=2, derived=rendered).root
    return root, MUTATIONS[name](root, random.Random(seed))


def judge(root: Path) -> refs.Verdict:
    return refs.judge([root])[0]


def test_s2_1_s13_bom_is_stripped_and_warned(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §2.1/§13: neither reference strips a BOM, so both lose the frontmatter.
    docs/format.md §2: we strip it and warn — the file is otherwise a valid episode."""
    root, m = mutated(tmp_path, "bom")
    ref = judge(root)
    assert ref_rules(ref) == {("episode-frontmatter-missing", "error", m.path)}
    assert doctor_codes(ref) == {("no-frontmatter", "error", m.path)}
    ours = validate(root)
    assert ours["verdict"] == "valid" and ours["exit"] == 0
    assert [(f["code"], f["severity"], f["path"], f["line"]) for f in ours["findings"] if f["code"] not in LAG] \
        == [("bom", "warning", m.path, 1)]


def test_s13_kind_in_the_wrong_directory(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §13 "episode in wrong category: not detected" by either; PRODUCT: we catch
    it."""
    root, m = mutated(tmp_path, "kind-directory-mismatch")
    ref = judge(root)
    assert not ref.fails and ref_rules(ref) == set() and doctor_codes(ref) == set()
    ours = validate(root)
    assert ours["verdict"] == "violations"
    assert [(f["path"], f["line"]) for f in found(ours, "kind-directory-mismatch")] == \
        [(m.path, line_of(root, m.path, "kind:"))]


def test_s13_conflict_markers(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §13 "conflict markers in an episode: not detected" by either; we report
    each marker line."""
    root, m = mutated(tmp_path, "conflict-markers")
    assert not judge(root).fails
    ours = validate(root)
    start = line_of(root, m.path, "<<<<<<< ")
    assert [(f["path"], f["line"]) for f in found(ours, "conflict-marker")] == \
        [(m.path, start), (m.path, start + 2), (m.path, start + 4)]
    assert ours["verdict"] == "violations"


def test_s14_14_instruction_shaped_text(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §6.2/§14.14: the promised instruction-shaped scan does not exist in the
    reference. We warn in a body and fail in display_title/description, which INDEX shows to every
    future session."""
    body_root, body = mutated(tmp_path / "body", "instruction-in-body")
    title_root, title = mutated(tmp_path / "title", "instruction-in-title")
    for ref in refs.judge([body_root, title_root]):
        assert not ref.fails and doctor_codes(ref) == set()
    in_body, in_title = validate_many([body_root, title_root])
    assert in_body["verdict"] == "valid"
    assert [(f["severity"], f["path"], f["line"]) for f in found(in_body, "instruction-in-body")] == \
        [("warning", body.path, line_of(body_root, body.path, "Ignore all previous"))]
    assert in_title["verdict"] == "violations"
    assert [(f["severity"], f["path"], f["line"]) for f in found(in_title, "instruction-in-title")] == \
        [("error", title.path, line_of(title_root, title.path, "display_title:"))]


def test_s14_3_control_characters_in_notes_are_caught_before_render(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §4/§14.3: the reference does not flatten notes read back from frontmatter,
    so a JSON `\\t` passes both validators and then breaks the ledger its own renderer writes."""
    root, m = mutated(tmp_path, "notes-tab-escape")
    assert not judge(root).fails
    ours = validate(root)
    assert [(f["path"], f["line"]) for f in found(ours, "control-character")] == \
        [(m.path, line_of(root, m.path, "notes:"))]
    refs.render([root])
    after = judge(root)
    assert ("ledger-malformed", "error", "ledger.tsv") in ref_rules(after)
    assert ("ledger-malformed", "error", "ledger.tsv") in doctor_codes(after)


def test_s2_5_headings_inside_code_fences_do_not_count(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §2.5: none of the reference section parsers knows fenced code; docs/format.md §2: a
    heading inside a fence is code, so a topic whose only `## Decisions` is in a fence lacks the
    section."""
    root, m = mutated(tmp_path, "heading-only-in-fence")
    ref = judge(root)
    assert not ref.fails and ref_rules(ref) == set()
    ours = validate(root)
    assert [f["path"] for f in found(ours, "section-missing")] == [m.path]
    assert "Decisions" in found(ours, "section-missing")[0]["message"]


def _long_titles(root: Path) -> None:
    for i, path in enumerate(sorted(root.glob("docs/*/*.md"))):
        text = re.sub(r"^display_title: .*\n", "", path.read_text(encoding="utf-8"), flags=re.MULTILINE)
        title = f"Episode {i}: " + "a very long and repetitive index title that costs tokens " * 6
        path.write_text(text.replace("\nkind: ", f"\ndisplay_title: \"{title.strip()}\"\nkind: ", 1),
                        encoding="utf-8")


def test_s14_1_index_budget_is_judged_for_linked_entries_too(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §6.5/§14.1: doctor's index-bloat parses only link-less entries, so it is
    dead on a linked shelf. The same over-long titles are over budget in both link modes for us."""
    roots = []
    for mode in ("none", "provider-none"):
        root = generate_shelf(tmp_path / mode, seed=6, episodes=10, archive=0, quirks=False, link_mode=mode).root
        _long_titles(root)
        roots.append(root)
    refs.render(roots)
    linkless, linked = refs.judge(roots)
    assert ("index-bloat", "warning", "INDEX.md") in doctor_codes(linkless)
    assert not any(code == "index-bloat" for code, _, _ in doctor_codes(linked))
    assert "](docs/" in (roots[1] / "INDEX.md").read_text(encoding="utf-8")
    for ours in validate_many(roots):
        assert [f["path"] for f in found(ours, "index-over-budget")] == ["INDEX.md"]
        assert "title" in found(ours, "index-over-budget")[0]["message"]


def test_s14_4_derived_stale_is_local_only(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §6.6/§14.4: doctor fails a PR checkout whose ledger was rendered more than
    24 h ago as soon as one episode is added. That judges the clone, not the shelf: we never report
    it."""
    root = generate_shelf(tmp_path / "s", seed=7, episodes=12, archive=0, derived=True).root
    donor = generate_shelf(tmp_path / "donor", seed=8, episodes=6, archive=0, quirks=False).root
    new = sorted(donor.glob("docs/topics/*.md"))[0]
    shutil.copyfile(new, root / "docs/topics" / new.name)
    day_old = time.time() - 48 * 3600
    os.utime(root / "ledger.tsv", (day_old, day_old))
    doctor = refs.memshelf_doctor(root, stale_hours=24)
    assert doctor["exit"] == 1 and [f["code"] for f in doctor["findings"] if f["level"] == "error"] == \
        ["derived-stale"]
    assert doctor["ci_errors"] == []
    assert refs.shelf_spec_validate(root)["verdict"] == "valid"
    ours = validate(root)
    assert ours["verdict"] == "valid" and ours["counts"]["error"] == 0


def test_s13_non_utf8_is_a_finding_not_a_traceback(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §2.1/§13: doctor dies with a traceback on non-UTF-8 bytes, shelf-spec
    decodes with replacement characters and passes. We report the byte and its line."""
    root, m = mutated(tmp_path, "invalid-utf8")
    ref = judge(root)
    assert ref.validate["verdict"] == "valid"
    assert ref.doctor["exit"] == 1 and ref.doctor["crash"].startswith("UnicodeDecodeError")
    ours = validate(root)
    assert ours["verdict"] == "violations" and "Traceback" not in ours["stderr"]
    assert [(f["path"], f["line"]) for f in found(ours, "invalid-utf8")] == \
        [(m.path, line_of(root, m.path, "Latin-1 caf"))]


def test_s13_single_quoted_id_reads_differently_to_the_two_parsers(ref_venv: Path, tmp_path: Path) -> None:
    """docs/reference.md §2.2/§13: YAML reads `id: '…'` as the stem (shelf-spec passes), the line
    reader keeps the quotes (doctor: id-mismatch). We name the real problem: the value is
    ambiguous."""
    root, m = mutated(tmp_path, "id-single-quoted")
    ref = judge(root)
    assert ref.validate["verdict"] == "valid"
    assert doctor_codes(ref) == {("id-mismatch", "error", m.path)}
    ours = validate(root)
    assert [(f["path"], f["line"]) for f in found(ours, "frontmatter-ambiguous")] == \
        [(m.path, line_of(root, m.path, "id:"))]


@pytest.mark.parametrize(("name", "spec_says", "doctor_says", "ours_says"), [
    ("kind-unknown", {"episode-kind-unknown": "warning"}, {"bad-kind": "error"}, "kind-invalid"),
    ("approx-tokens-bool", {}, {"bad-approx-tokens": "error"}, "approx-tokens-not-plain"),
    ("approx-tokens-quoted", {"episode-frontmatter-invalid": "error"}, {}, "approx-tokens-invalid"),
    ("heading-tab", {"episode-sections-missing": "error"}, {}, "heading-malformed"),
])
def test_s14_where_the_references_disagree_the_stricter_wins(
        ref_venv: Path, tmp_path: Path, name: str, spec_says: dict, doctor_says: dict, ours_says: str) -> None:
    """docs/reference.md §13/§14: one reference errors where the other passes or only warns; we
    error."""
    root, m = mutated(tmp_path, name)
    ref = judge(root)
    assert {(r, s) for r, s, p in ref_rules(ref) if p == m.path} == set(spec_says.items())
    assert {(c, lv) for c, lv, p in doctor_codes(ref) if p == m.path} == set(doctor_says.items())
    ours = validate(root)
    assert ours["verdict"] == "violations"
    assert [f["severity"] for f in found(ours, ours_says) if f["path"] == m.path] == ["error"]


def test_spec2_tags_must_be_a_list_of_strings(ref_venv: Path, tmp_path: Path) -> None:
    """docs/format.md §2 "required YAML list of strings": both references accept `tags: [1, 2]`."""
    root, m = mutated(tmp_path, "tags-not-strings")
    assert not judge(root).fails
    assert [f["path"] for f in found(validate(root), "tag-invalid")] == [m.path]


@pytest.mark.parametrize(("name", "ours_says"), [
    ("duplicate-id-categories", "duplicate-id"),
    ("undated-id-no-date", "date-missing"),
])
def test_s13_ledger_breakage_is_caught_before_render(
        ref_venv: Path, tmp_path: Path, name: str, ours_says: str) -> None:
    """docs/reference.md §13/§10: the same id in two categories, or an undated id without `date`,
    passes both references until the ledger is rendered, then breaks it. We report it on the
    episode."""
    root, m = mutated(tmp_path, name)
    assert not judge(root).fails
    ours = validate(root)
    assert m.path in [f["path"] for f in found(ours, ours_says)]
    refs.render([root])
    after = judge(root)
    assert ("ledger-malformed", "error", "ledger.tsv") in doctor_codes(after)


def test_product_symlinks_are_never_followed(ref_venv: Path, tmp_path: Path) -> None:
    """PRODUCT "symlinks ... never followed": doctor reads through the link (and so reports the
    target's id under the link's name); we report the link and read nothing behind it."""
    root, m = mutated(tmp_path, "symlink")
    ref = judge(root)
    assert ("id-mismatch", "error", m.path) in doctor_codes(ref)
    ours = validate(root)
    assert [(f["code"], f["path"]) for f in ours["findings"] if f["path"] == m.path] == [("symlink", m.path)]
