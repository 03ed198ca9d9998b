#!/usr/bin/env python3
"""Extract webhook schemas and one example payload per event/action for the tests.

Schemas come from `@octokit/openapi-webhooks` (OpenAPI 3.1), examples from
`@octokit/webhooks-examples`. For each event/action in `EVENTS` the script picks the example
that needs the fewest patches to validate against the current schema, fills each missing
required property from `PATCHES` (and fails loudly on any other validation error), renames the
repository to `octo/shelf`, and writes `memshelf_sandbox/data/webhooks/<event>.<action>.json` plus
`schemas.json` (the event schemas with the components they reach, prose dropped): the sandbox
builds the webhooks it delivers from those examples and validates them against those schemas.

Usage: scripts/extract_webhooks.py [--schemas FILE --examples FILE] [--out DIR]
Without the two files it runs `npm pack` for the pinned versions in a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from extract_openapi import Extractor
from openapi_schema_validator import OAS31Validator

SCHEMAS_PACKAGE = ("@octokit/openapi-webhooks", "12.1.0", "package/generated/api.github.com.json")
EXAMPLES_PACKAGE = ("@octokit/webhooks-examples", "7.6.1", "package/api.github.com/index.json")
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "memshelf_sandbox" / "data" / "webhooks"

# (event, action or None) -> the webhook key in the OpenAPI `webhooks` map
EVENTS: dict[tuple[str, str | None], str] = {
    ("pull_request", "opened"): "pull-request-opened",
    ("pull_request", "synchronize"): "pull-request-synchronize",
    ("pull_request", "reopened"): "pull-request-reopened",
    ("pull_request", "closed"): "pull-request-closed",
    ("check_suite", "requested"): "check-suite-requested",
    ("check_suite", "rerequested"): "check-suite-rerequested",
    ("check_run", "rerequested"): "check-run-rerequested",
    ("ping", None): "ping",
    ("push", None): "push",
    ("issue_comment", "created"): "issue-comment-created",
    ("workflow_dispatch", None): "workflow-dispatch",
    ("merge_group", "checks_requested"): "merge-group-checks-requested",
}

# Values for required properties the (older) examples lack; chosen as GitHub's defaults.
PATCHES: dict[str, Any] = {
    "has_discussions": False,
    "topics": [],
    "visibility": "public",
    "auto_merge": None,
    "performed_via_github_app": None,
    "active_lock_reason": None,
    "description": None,
    "disabled": False,
    "permissions": {},  # an App's, in check_run.app (older examples lack it)
    "events": [],
    "node_id": "MDg6Q2hlY2tSdW4x",  # a check run's (the sandbox fills its own)
    "details_url": "https://github.com",
}

# Where one schema contradicts its siblings, align it, and say so in the bundle ("amendments"):
# (component, path to an enum inside it, value added, why).
AMENDMENTS: list[tuple[str, tuple[str, ...], str, str]] = [
    ("webhook-check-suite-rerequested",
     ("properties", "check_suite", "properties", "app", "properties", "events", "items"), "merge_group",
     "the App's events enum of check_suite.requested and check_suite.completed lists merge_group; "
     "this one alone does not, so an App subscribed to merge queues could not be re-requested"),
]

OLD_NAMES = ("Codertocat/Hello-World", "octo-org/octo-repo", "github/hello-world", "Octocoders/Hello-World")
NEW_OWNER, NEW_REPO = "octo", "shelf"


def npm_json(package: tuple[str, str, str], workdir: Path) -> Any:
    name, version, member = package
    out = subprocess.run(["npm", "pack", "--silent", f"{name}@{version}"], cwd=workdir,
                         check=True, capture_output=True, text=True).stdout.split()[-1]
    with tarfile.open(workdir / out) as tar:
        handle = tar.extractfile(member)
        if handle is None:
            raise SystemExit(f"{member} missing from {out}")
        return json.load(handle)


def preferred(event: str, example: dict[str, Any]) -> bool:
    """A push to a branch with commits is what the bot reacts to; tag pushes are not. An App's
    ping names its App (`hook.app_id`)."""
    if event == "ping":
        return "app_id" in example.get("hook", {})
    return event != "push" or (example["ref"].startswith("refs/heads/") and bool(example["commits"]))


def patch(example: dict[str, Any], validator: Any) -> list[str]:
    """Fill missing required properties; any other error means the example is unusable."""
    applied = []
    for _ in range(50):
        errors = list(validator.iter_errors(example))
        if not errors:
            return applied
        for error in errors:
            if error.validator != "required":
                raise ValueError(f"{list(error.absolute_path)}: {error.message}")
            prop = error.message.split("'")[1]
            if prop not in PATCHES:
                raise ValueError(f"no patch for missing {prop!r} at {list(error.absolute_path)}")
            error.instance[prop] = PATCHES[prop]
            applied.append("/".join(map(str, [*error.absolute_path, prop])))
    raise ValueError("patching did not converge")


def rename(node: Any) -> Any:
    if isinstance(node, str):
        for old in OLD_NAMES:
            node = node.replace(old, f"{NEW_OWNER}/{NEW_REPO}")
        return node
    if isinstance(node, list):
        return [rename(item) for item in node]
    if isinstance(node, dict):
        return {key: rename(value) for key, value in node.items()}
    return node


def point_at_sandbox(example: dict[str, Any]) -> dict[str, Any]:
    """Rename every repository object (the event's, and a PR's base/head repo) to octo/shelf."""
    example = rename(example)

    def fix(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                fix(item)
        elif isinstance(node, dict):
            if node.get("full_name") == f"{NEW_OWNER}/{NEW_REPO}" and isinstance(node.get("owner"), dict):
                old_owner = node["owner"]["login"]
                node["name"] = NEW_REPO
                node["owner"] = {key: value.replace(f"/{old_owner}", f"/{NEW_OWNER}") if isinstance(value, str)
                                 else value for key, value in node["owner"].items()}
                node["owner"]["login"] = NEW_OWNER
            for value in node.values():
                fix(value)

    fix(example)
    return example


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--schemas", type=Path, help=f"a local {SCHEMAS_PACKAGE[2]} (skips npm)")
    ap.add_argument("--examples", type=Path, help=f"a local {EXAMPLES_PACKAGE[2]} (skips npm)")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        spec = (json.loads(args.schemas.read_text("utf-8")) if args.schemas
                else npm_json(SCHEMAS_PACKAGE, Path(tmp)))
        examples = (json.loads(args.examples.read_text("utf-8")) if args.examples
                    else npm_json(EXAMPLES_PACKAGE, Path(tmp)))
    by_event = {entry["name"]: entry["examples"] for entry in examples}

    ex = Extractor(spec)
    events = {}
    for (event, action), key in EVENTS.items():
        schema = spec["webhooks"][key]["post"]["requestBody"]["content"]["application/json"]["schema"]
        events[f"{event}.{action}" if action else event] = ex.strip(schema)
    amendments = []
    for component, path, value, reason in AMENDMENTS:
        node = ex.schemas[component]
        for key in path:
            node = node[key]
        if value not in node["enum"]:
            node["enum"].append(value)
            amendments.append({"schema": component, "path": "/".join(path), "added_to_enum": value,
                               "reason": reason})
    bundle = {
        "source": {"schemas": dict(zip(("package", "version", "file"), SCHEMAS_PACKAGE, strict=True)),
                   "examples": dict(zip(("package", "version", "file"), EXAMPLES_PACKAGE, strict=True)),
                   "openapi": spec["openapi"]},
        "amendments": amendments,
        "events": events,
        "components": {"schemas": dict(sorted(ex.schemas.items()))},
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "schemas.json").write_text(json.dumps(bundle, indent=1) + "\n", encoding="utf-8")

    for (event, action), _ in EVENTS.items():
        name = f"{event}.{action}" if action else event
        validator = OAS31Validator({**events[name], "components": bundle["components"]})
        candidates = [e for e in by_event[event] if e.get("action") == action and preferred(event, e)]
        best = min(candidates, key=lambda e: len(list(validator.iter_errors(e))))
        applied = patch(best, validator)
        payload = point_at_sandbox(best)
        patch(payload, validator)  # renaming must not break validation
        (args.out / f"{name}.json").write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
        print(f"{name}.json: patched {applied or 'nothing'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
