#!/usr/bin/env python3
"""Extract the GitHub REST operations the sandbox serves from `@octokit/openapi`.

The sandbox validates every request and response against GitHub's own description, but the
full file is ~15 MB; this keeps only the operations listed in `OPERATIONS`, inlines the
parameter/response/header components they use, bundles the schema components they reach
(transitively) and drops prose and examples, so the committed file stays small and reviewable.

Usage: scripts/extract_openapi.py [--source api.github.com.json | --version X.Y.Z] [--out FILE]
Without --source it runs `npm pack @octokit/openapi@VERSION` in a temporary directory.
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

PACKAGE = "@octokit/openapi"
DEFAULT_VERSION = "23.0.2"
MEMBER = "package/generated/api.github.com.json"
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "memshelf_sandbox" / "data" / "github-api.json"

R = "/repos/{owner}/{repo}"
OPERATIONS: list[tuple[str, str]] = [
    ("GET", R),
    ("GET", f"{R}/branches/{{branch}}"),
    ("GET", f"{R}/collaborators/{{username}}/permission"),
    ("GET", f"{R}/contents/{{path}}"),
    ("GET", f"{R}/compare/{{basehead}}"),
    ("GET", f"{R}/commits/{{ref}}"),
    ("GET", f"{R}/commits/{{ref}}/status"),
    ("GET", f"{R}/commits/{{ref}}/statuses"),
    ("GET", f"{R}/commits/{{ref}}/check-runs"),
    ("GET", f"{R}/commits/{{ref}}/check-suites"),
    ("POST", f"{R}/statuses/{{sha}}"),
    ("POST", f"{R}/check-runs"),
    ("GET", f"{R}/check-runs/{{check_run_id}}"),
    ("PATCH", f"{R}/check-runs/{{check_run_id}}"),
    ("GET", f"{R}/check-runs/{{check_run_id}}/annotations"),
    ("POST", f"{R}/check-runs/{{check_run_id}}/rerequest"),
    ("GET", f"{R}/check-suites/{{check_suite_id}}"),
    ("GET", f"{R}/check-suites/{{check_suite_id}}/check-runs"),
    ("POST", f"{R}/check-suites/{{check_suite_id}}/rerequest"),
    ("GET", f"{R}/pulls"),
    ("POST", f"{R}/pulls"),
    ("GET", f"{R}/pulls/{{pull_number}}"),
    ("PATCH", f"{R}/pulls/{{pull_number}}"),
    ("GET", f"{R}/pulls/{{pull_number}}/files"),
    ("GET", f"{R}/pulls/{{pull_number}}/commits"),
    ("GET", f"{R}/pulls/{{pull_number}}/merge"),
    ("PUT", f"{R}/pulls/{{pull_number}}/merge"),
    ("GET", f"{R}/pulls/{{pull_number}}/comments"),
    ("GET", f"{R}/pulls/{{pull_number}}/reviews"),
    ("POST", f"{R}/pulls/{{pull_number}}/reviews"),
    ("GET", f"{R}/issues"),
    ("POST", f"{R}/issues"),
    ("GET", f"{R}/issues/{{issue_number}}"),
    ("PATCH", f"{R}/issues/{{issue_number}}"),
    ("GET", f"{R}/issues/{{issue_number}}/comments"),
    ("POST", f"{R}/issues/{{issue_number}}/comments"),
    ("GET", f"{R}/issues/comments/{{comment_id}}"),
    ("PATCH", f"{R}/issues/comments/{{comment_id}}"),
    ("DELETE", f"{R}/issues/comments/{{comment_id}}"),
    ("GET", f"{R}/issues/comments/{{comment_id}}/reactions"),
    ("POST", f"{R}/issues/comments/{{comment_id}}/reactions"),
    ("GET", f"{R}/issues/{{issue_number}}/labels"),
    ("POST", f"{R}/issues/{{issue_number}}/labels"),
    ("DELETE", f"{R}/issues/{{issue_number}}/labels/{{name}}"),
    ("GET", f"{R}/labels"),
    ("POST", f"{R}/labels"),
    ("GET", f"{R}/labels/{{name}}"),
    ("POST", f"{R}/git/blobs"),
    ("GET", f"{R}/git/blobs/{{file_sha}}"),
    ("POST", f"{R}/git/trees"),
    ("GET", f"{R}/git/trees/{{tree_sha}}"),
    ("POST", f"{R}/git/commits"),
    ("GET", f"{R}/git/commits/{{commit_sha}}"),
    ("GET", f"{R}/git/ref/{{ref}}"),
    ("GET", f"{R}/git/matching-refs/{{ref}}"),
    ("POST", f"{R}/git/refs"),
    ("PATCH", f"{R}/git/refs/{{ref}}"),
    ("DELETE", f"{R}/git/refs/{{ref}}"),
    # the GitHub App's side: identity, installations, tokens, webhook deliveries
    ("GET", "/app"),
    ("GET", "/app/installations"),
    ("GET", "/app/installations/{installation_id}"),
    ("POST", "/app/installations/{installation_id}/access_tokens"),
    ("GET", "/installation/repositories"),
    ("GET", f"{R}/installation"),
    ("GET", "/app/hook/deliveries"),
    ("GET", "/app/hook/deliveries/{delivery_id}"),
    ("POST", "/app/hook/deliveries/{delivery_id}/attempts"),
    # the manifest flow's last step (`memshelf-bot setup`): a one-time code for the new App's credentials
    ("POST", "/app-manifests/{code}/conversions"),
]

# Where the description's schema is narrower than what its own text documents, widen it, and say
# so in the output ("amendments"). Each: operation key, what to add to the request body's oneOf, why.
AMENDMENTS: list[tuple[str, dict[str, Any], str]] = [
    (f"POST {R}/issues/{{issue_number}}/labels",
     {"type": "array", "minItems": 1, "items": {"type": "string"}},
     "its description says 'You can also pass an `array` of labels directly' (PyGithub does)"),
]

# Keys that only document; dropping them keeps the file small and changes no validation.
PROSE = {"description", "summary", "example", "examples", "externalDocs", "title", "x-github",
         "x-octokit", "tags", "deprecated", "x-github-breaking-changes"}


def fetch(version: str, workdir: Path) -> dict[str, Any]:
    """`npm pack` the package (registry only, no install scripts) and read the JSON from the tarball."""
    out = subprocess.run(["npm", "pack", "--silent", f"{PACKAGE}@{version}"], cwd=workdir,
                         check=True, capture_output=True, text=True).stdout.split()[-1]
    with tarfile.open(workdir / out) as tar:
        member = tar.extractfile(MEMBER)
        if member is None:
            raise SystemExit(f"{MEMBER} missing from {out}")
        return json.load(member)


def pointer(doc: dict[str, Any], ref: str) -> Any:
    node: Any = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


class Extractor:
    """Walks operations, inlining non-schema components and collecting reachable schemas."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.schemas: dict[str, Any] = {}

    def strip(self, node: Any, in_properties: bool = False) -> Any:
        """Drop prose; inline every `$ref` except schema refs, which are bundled instead."""
        if isinstance(node, list):
            return [self.strip(item) for item in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref.startswith("#/components/schemas/"):
                self.bundle(ref.rsplit("/", 1)[1])
                return {"$ref": ref}
            return self.strip(pointer(self.doc, ref))
        out = {}
        for key, value in node.items():
            if key in PROSE and not in_properties:
                continue
            out[key] = self.strip(value, in_properties=key == "properties")
        return out

    def bundle(self, name: str) -> None:
        if name in self.schemas:
            return
        self.schemas[name] = {}  # placeholder: breaks cycles
        self.schemas[name] = self.strip(self.doc["components"]["schemas"][name])

    def operation(self, method: str, path: str) -> dict[str, Any]:
        item = self.doc["paths"][path]
        raw = item[method.lower()]
        params = [self.strip(p) for p in item.get("parameters", []) + raw.get("parameters", [])]
        op: dict[str, Any] = {
            "method": method,
            "path": path,
            "operationId": raw["operationId"],
            "documentation_url": raw.get("externalDocs", {}).get("url"),
            "parameters": params,
            "responses": {},
        }
        body = raw.get("requestBody")
        if body:
            body = self.strip(body)
            content = body.get("content", {})
            media = content.get("application/json") or next(iter(content.values()), {})
            op["requestBody"] = {"required": bool(body.get("required")), "schema": media.get("schema")}
        for status, response in raw["responses"].items():
            response = self.strip(response)
            content = response.get("content", {})
            media = content.get("application/json") or next(iter(content.values()), None)
            op["responses"][status] = {
                "schema": media.get("schema") if media else None,
                "headers": sorted(response.get("headers", {})),
            }
        return op


def normalize(node: Any, counts: dict[str, int]) -> Any:
    """Make three OpenAPI 3.0.3 corner cases mean what GitHub sends (it sends null / arrays there).

    - `nullable: true` without `type` (beside oneOf/anyOf/allOf) has no effect in 3.0.3; GitHub
      means "or null" (e.g. a commit's `author`), so null becomes an explicit alternative.
    - `nullable: true` with an `enum` lacking null rejects null in 3.0.3; GitHub sends null
      (e.g. an in-progress check run's `conclusion`), so null joins the enum.
    - a `discriminator` whose mapping names `array` cannot apply to a JSON array (the contents
      of a directory); discriminators only speed up oneOf, so they are dropped.
    """
    if isinstance(node, list):
        return [normalize(item, counts) for item in node]
    if not isinstance(node, dict):
        return node
    node = {key: normalize(value, counts) for key, value in node.items()}
    if node.pop("discriminator", None) is not None:
        counts["discriminator dropped"] = counts.get("discriminator dropped", 0) + 1
    if node.get("nullable") is True and "enum" in node and None not in node["enum"]:
        node["enum"] = [*node["enum"], None]
        counts["null added to a nullable enum"] = counts.get("null added to a nullable enum", 0) + 1
    if node.get("nullable") is True and "type" not in node and any(k in node for k in ("oneOf", "anyOf", "allOf")):
        rest = {key: value for key, value in node.items() if key != "nullable"}
        counts["null made explicit beside oneOf/anyOf/allOf"] = counts.get(
            "null made explicit beside oneOf/anyOf/allOf", 0) + 1
        return {"anyOf": [{"type": "object", "nullable": True, "enum": [None]}, rest]}
    return node


def extract(doc: dict[str, Any], version: str) -> dict[str, Any]:
    ex = Extractor(doc)
    operations = {f"{m} {p}": ex.operation(m, p) for m, p in OPERATIONS}
    amendments = []
    for key, alternative, reason in AMENDMENTS:
        operations[key]["requestBody"]["schema"]["oneOf"].append(alternative)
        amendments.append({"operation": key, "added_to_request_oneOf": alternative, "reason": reason})
    ex.bundle("basic-error")  # the body of any error status an operation does not document
    counts: dict[str, int] = {}
    operations = normalize(operations, counts)
    schemas = normalize(dict(sorted(ex.schemas.items())), counts)
    return {
        "source": {"package": PACKAGE, "version": version, "file": MEMBER.removeprefix("package/"),
                   "openapi": doc["openapi"]},
        "amendments": amendments,
        "normalizations": counts,
        "operations": operations,
        "components": {"schemas": schemas},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, help="a local api.github.com.json (skips npm)")
    ap.add_argument("--version", default=DEFAULT_VERSION, help=f"package version (default {DEFAULT_VERSION})")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if args.source:
        doc = json.loads(args.source.read_text(encoding="utf-8"))
        version = doc["info"]["version"]
    else:
        with tempfile.TemporaryDirectory() as tmp:
            doc = fetch(args.version, Path(tmp))
        version = args.version
    data = extract(doc, version)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    print(f"{args.out.name}: {len(data['operations'])} operations, "
          f"{len(data['components']['schemas'])} schemas, {args.out.stat().st_size} bytes", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
