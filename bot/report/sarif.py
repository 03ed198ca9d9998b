"""The findings as a SARIF file for `github/codeql-action/upload-sarif`, written by the core's
SARIF writer with repository-relative paths; every field masked like everything the bot writes.
The file goes to `.memshelf-bot/memshelf-bot.sarif` in the workspace (`botdir`: never through a
symlink the checkout holds), and its path becomes the Action's `sarif_file` output (the sink's result names the file)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memshelf_render.check import repo_path
from memshelf_render.report.as_sarif import as_dict

from . import Posted, Publication, SinkName, SinkResult, botdir

FILE = "memshelf-bot.sarif"


def sarif(publication: Publication) -> dict:
    """The SARIF log of the publication's findings, each located by its repository path."""
    report = publication.outcome.report
    log = as_dict(report)
    for f, result in zip(report.findings, log["runs"][0]["results"], strict=True):
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        location["uri"] = repo_path(f.path or "shelf.yml", publication.prefix)
    return log


@dataclass
class SarifSink:
    """`root`: the workspace the file is written into."""

    root: Path
    clean: Callable[[str], str]

    def publish(self, publication: Publication) -> SinkResult:
        text = json.dumps(sarif(publication), indent=2, ensure_ascii=False)
        try:
            where = botdir.write(self.root, FILE, self.clean(text) + "\n")
        except OSError as exc:
            return SinkResult(SinkName.SARIF, Posted.FAILED, f"SARIF: not written ({exc.strerror or exc}).")
        return SinkResult(SinkName.SARIF, Posted.DONE, f"SARIF: {len(publication.findings)} finding(s) in `{where}`.",
                          file=where)
