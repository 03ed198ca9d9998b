"""GitHub's own OpenAPI description as the sandbox's contract: routing and validation.

`data/github-api.json` is extracted from `@octokit/openapi` by `scripts/extract_openapi.py`.
Requests the description rejects are answered the way GitHub answers them (400 for a body that
is not JSON, 422 with an `errors` list otherwise); responses it rejects are sandbox bugs and are
reported to the caller of `validate_response` so the tests can fail on them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from openapi_schema_validator import OAS30Validator

DATA = Path(__file__).parent / "data" / "github-api.json"
# Path parameters that may contain slashes (refs, branch names, file paths, `base...head`).
GREEDY = {"ref": ".+", "branch": ".+", "path": ".*", "basehead": ".+"}
# Legacy paths GitHub still answers (undocumented) and PyGithub calls, each served and validated
# as the documented operation it is an alias of: (method, regex) -> operation key.
ALIASES = {
    ("GET", re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/statuses/(?P<ref>[^/]+)$")):
        "GET /repos/{owner}/{repo}/commits/{ref}/statuses",
}


@dataclass
class Operation:
    key: str
    method: str
    path: str
    operation_id: str
    documentation_url: str | None
    parameters: list[dict[str, Any]]
    request_body: dict[str, Any] | None
    responses: dict[str, dict[str, Any]]
    pattern: re.Pattern[str] = field(init=False)
    literal_length: int = field(init=False)

    def __post_init__(self) -> None:
        regex = ""
        for part in re.split(r"(\{[^}]+\})", self.path):
            if part.startswith("{"):
                name = part[1:-1]
                regex += f"(?P<{name}>{GREEDY[name]})" if name in GREEDY else f"(?P<{name}>[^/]+)"
            else:
                regex += re.escape(part)
        self.pattern = re.compile(f"^{regex}$")
        self.literal_length = len(re.sub(r"\{[^}]+\}", "", self.path))


@dataclass(frozen=True)
class RequestProblem:
    """A request GitHub would refuse: the status and body it answers with."""

    status: int
    message: str
    errors: list[dict[str, Any]] = field(default_factory=list)


class ApiDescription:
    """The extracted operations, their validators, and route matching."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.source = data["source"]
        self.components = data["components"]
        self._validators: dict[int, Any] = {}
        self._basic_error = {"$ref": "#/components/schemas/basic-error"}
        self.operations = [
            Operation(key, op["method"], op["path"], op["operationId"], op.get("documentation_url"),
                      op["parameters"], op.get("requestBody"), op["responses"])
            for key, op in data["operations"].items()
        ]
        # More literal text first, so `/commits/{ref}/status` wins over `/commits/{ref}`.
        self.operations.sort(key=lambda op: -op.literal_length)

    def validator(self, schema: dict[str, Any]) -> Any:
        """A validator for a schema of the description, built once (schemas live as long as we do)."""
        key = id(schema)
        if key not in self._validators:
            self._validators[key] = OAS30Validator({**schema, "components": self.components},
                                                   format_checker=OAS30Validator.FORMAT_CHECKER)
        return self._validators[key]

    def match(self, method: str, raw_path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation for a request path (still percent-encoded), with decoded path params."""
        for op in self.operations:
            if op.method != method:
                continue
            m = op.pattern.match(raw_path)
            if m:
                return op, {k: unquote(v) for k, v in m.groupdict().items()}
        for (alias_method, pattern), key in ALIASES.items():
            m = pattern.match(raw_path)
            if m and alias_method == method:
                op = next(o for o in self.operations if o.key == key)
                return op, {k: unquote(v) for k, v in m.groupdict().items()}
        return None

    # requests -------------------------------------------------------------------

    def coerce_query(self, op: Operation, query: dict[str, list[str]]) -> tuple[dict[str, Any], RequestProblem | None]:
        """Typed query values per the description, defaults applied; bad values → 422 as GitHub."""
        values: dict[str, Any] = {}
        errors = []
        for param in op.parameters:
            if param["in"] != "query":
                continue
            name, schema = param["name"], param.get("schema", {})
            if name not in query:
                if "default" in schema:
                    values[name] = schema["default"]
                continue
            raw = query[name][-1]
            value: Any = raw
            if schema.get("type") == "integer":
                try:
                    value = int(raw)
                except ValueError:
                    errors.append({"resource": "Query", "field": name, "code": "invalid", "value": raw})
                    continue
            elif schema.get("type") == "boolean":
                value = raw.lower() in ("1", "true")
            problems = list(self.validator(schema).iter_errors(value))
            if problems:
                errors.append({"resource": "Query", "field": name, "code": "invalid", "value": raw})
                continue
            values[name] = value
        if errors:
            return values, RequestProblem(422, "Validation Failed", errors)
        return values, None

    def check_body(self, op: Operation, raw: bytes) -> tuple[Any, RequestProblem | None]:
        """Parse and validate a JSON body; GitHub answers 400 for unparseable JSON, 422 for the rest."""
        body: Any = None
        if raw.strip():
            try:
                body = json.loads(raw)
            except ValueError:
                return None, RequestProblem(400, "Problems parsing JSON")
        spec = op.request_body
        if spec is None:
            return body, None
        if body is None:
            if spec.get("required"):
                return None, RequestProblem(400, "Problems parsing JSON")
            return None, None
        schema = spec.get("schema") or {}
        errors = sorted(self.validator(schema).iter_errors(body), key=lambda e: list(e.absolute_path))
        if not errors:
            return body, None
        return body, RequestProblem(422, "Invalid request.\n\n" + "\n".join(_describe(e) for e in errors),
                                    [_error_item(e) for e in errors])

    # responses -------------------------------------------------------------------

    def validate_response(self, op: Operation, status: int, body: Any) -> list[str]:
        """Problems with a sandbox response; an empty list means GitHub's description accepts it."""
        documented = op.responses.get(str(status))
        if documented is None:
            if status >= 400:
                schema: dict[str, Any] | None = self._basic_error
            else:
                return [f"{op.key}: status {status} is not documented"]
        else:
            schema = documented.get("schema")
        if schema is None:
            return [] if body is None else [f"{op.key}: {status} documents no body but one was sent"]
        return [f"{op.key} {status} at /{'/'.join(map(str, e.absolute_path))}: {e.message}"
                for e in self.validator(schema).iter_errors(body)]


def _error_item(error: Any) -> dict[str, Any]:
    item = {"resource": "Request", "code": "invalid", "message": error.message}
    where = "/".join(map(str, error.absolute_path))
    if where:
        item["field"] = where
    return item


def _describe(error: Any) -> str:
    """GitHub's wording: `"sha" wasn't supplied.` / `For 'properties/force', "yes" is not a boolean.`"""
    if error.validator == "required":
        missing = error.message.split(" is a required")[0].strip("'")
        return f'"{missing}" wasn\'t supplied.'
    where = "/".join(f"properties/{p}" if isinstance(p, str) else "items" for p in error.absolute_path)
    value = json.dumps(error.instance)
    if error.validator == "type":
        return f"For '{where or 'body'}', {value} is not a{'n' if str(error.validator_value)[0] in 'aeiou' else ''} {error.validator_value}."
    if error.validator == "enum":
        return f"For '{where}', {value} is not a member of enum {json.dumps(error.validator_value)}."
    return f"For '{where or 'body'}', {value} is not valid: {error.message}."


@cache
def description() -> ApiDescription:
    return ApiDescription(json.loads(DATA.read_text(encoding="utf-8")))
