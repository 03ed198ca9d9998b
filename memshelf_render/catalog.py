"""The rule catalog: every check's stable code, severity, scope, fix and shelf-spec rule.

One table, printed by `memshelf-bot validate --list-rules`. Severity belongs to the code, never
to the call site, so a check cannot be softened in one front-end and strict in another. Where
shelf-spec and memshelf doctor disagree on a severity, the stricter one is taken.

Scopes: ``config`` findings stop everything (exit 2); ``shelf`` and ``episode`` findings are
reported everywhere; ``derived`` findings judge the rendered files and are left out in PR mode
(``--changed``), where derived files lag by design; ``guard`` findings come from the PR diff.
"""

from __future__ import annotations

from dataclasses import dataclass

from .severity import Severity

ERR, WARN, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    severity: Severity
    scope: str
    spec_rule: str | None
    summary: str
    fix: str


_TABLE: list[tuple] = [
    # code, severity, scope, shelf-spec rule, summary, fix
    ("manifest-missing", ERR, "config", "manifest-missing",
     "shelf.yml is missing", "Create shelf.yml (spec_version: \"0.1\", mode: single, profile: memory)."),
    ("manifest-invalid", ERR, "config", "manifest-invalid",
     "shelf.yml is not valid YAML or fails the shelf-spec schema", "Fix shelf.yml as the message says; spec_version must be a quoted string."),
    ("settings-invalid", ERR, "config", None,
     ".memshelf-bot.yml is not valid YAML or fails its schema", "Fix .memshelf-bot.yml as the message says; unknown keys are not allowed."),
    ("profile-unknown", WARN, "shelf", "profile-unknown",
     "profile is not memory; only universal rules run", "Set profile: memory for an agent memory shelf."),
    ("reserved-mode", INFO, "shelf", "reserved-m1",
     "mode multi, agents or provenance are reserved for a later spec", "Use mode: single and drop reserved keys until the spec defines them."),
    ("extra-dir-missing", INFO, "shelf", "extra-dir-missing",
     "a declared extra_dirs entry does not exist", "Create the directory or remove it from extra_dirs."),
    ("docs-root-missing", ERR, "shelf", "docs-root-missing",
     "the docs root is not a directory", "Create the docs root (default docs/) with the category directories."),
    ("category-undeclared", ERR, "shelf", "category-undeclared",
     "a category directory is not declared in shelf.yml", "Declare the category in shelf.yml categories, or move its files."),
    ("category-unknown", ERR, "shelf", None,
     "a memory shelf category other than topics, research, sessions", "Move the episodes into docs/topics, docs/research or docs/sessions."),
    ("category-empty", INFO, "shelf", "empty-category",
     "a declared category has no episodes yet", "Nothing to do; it fills as episodes are shelved."),
    ("stray-file", ERR, "shelf", "episode-frontmatter-missing",
     "a Markdown file directly in the docs root is not an episode", "Move it into a category directory as an episode, or out of the docs root."),
    ("symlink", ERR, "shelf", None,
     "a symbolic link under the shelf's episode roots (never followed)", "Replace the link with the real file, or remove it."),
    ("submodule", ERR, "shelf", None,
     "a git submodule or nested repository under the episode roots", "Remove the submodule; episodes must live in the shelf repository itself."),
    ("split-dir-orphaned", WARN, "shelf", "orphaned-split-dir",
     "a sub-directory of a category with no episode of the same stem", "Remove the directory or restore its episode."),
    ("split-out-of-sync", WARN, "shelf", "split-out-of-sync",
     "a legacy split directory's section files are not numbered 001, 002, ...", "Renumber the section files contiguously from 001, or remove the split directory."),
    ("duplicate-title", WARN, "shelf", "duplicate-title",
     "two episodes of one category have the same INDEX title", "Give one of them a distinct display_title."),
    ("docshelf-config-invalid", ERR, "shelf", None,
     ".docshelf.json is not a JSON object with the expected value types", "Fix .docshelf.json: an object whose name, preamble, provider, remote, branch are strings."),
    ("docshelf-provider-unknown", ERR, "shelf", None,
     ".docshelf.json provider is not github, gitlab, gitea, custom or none", "Set provider to one of github, gitlab, gitea, custom, none."),
    ("docshelf-template-missing", ERR, "shelf", None,
     "provider custom without a url_template", "Set url_template (with {owner}, {repo}, {branch}, {path}) or another provider."),
    ("docshelf-config-conflict", WARN, "shelf", "docshelf-config-conflict",
     ".docshelf.json disagrees with shelf.yml (name or category_order)", "Make .docshelf.json name and category_order agree with shelf.yml."),
    ("policy-missing", INFO, "shelf", "no-policy",
     "the policy file named by shelf.yml is missing", "Add POLICY.md describing what must never be shelved."),
    ("policy-pattern-invalid", WARN, "shelf", None,
     "a POLICY.patterns line is not '<kind> <regex>' or its regex does not compile", "Write the line as '<kind> <regex>' with a valid Python regex, or comment it out."),
    ("duplicate-id", ERR, "shelf", None,
     "the same episode id in two files (docs or archive)", "Give each episode a unique id (and matching file name)."),
    # --- one episode file ---
    ("invalid-utf8", ERR, "episode", None,
     "the file is not valid UTF-8", "Re-save the file as UTF-8."),
    ("file-unreadable", ERR, "episode", None,
     "the file cannot be read", "Check the file's permissions and that it is a regular file."),
    ("bom", WARN, "episode", None,
     "the file starts with a UTF-8 byte order mark", "Re-save the file as UTF-8 without a BOM."),
    ("file-too-large", ERR, "episode", None,
     "the episode is larger than the size cap and was not read", "Shelve a shorter episode: keep Raw excerpts to what a future session needs."),
    ("frontmatter-missing", ERR, "episode", "episode-frontmatter-missing",
     "no frontmatter block on the first line or right after one H1", "Start the file with '# <id>', a blank line, then a '---' fenced YAML block."),
    ("frontmatter-unclosed", ERR, "episode", "episode-frontmatter-missing",
     "the frontmatter's opening '---' has no closing '---'", "Close the frontmatter with a line holding only '---'."),
    ("frontmatter-yaml-invalid", ERR, "episode", "episode-frontmatter-missing",
     "the frontmatter is not valid YAML", "Quote values that contain ': ', '#' or backslashes (double quotes, JSON escapes)."),
    ("frontmatter-not-mapping", ERR, "episode", "episode-frontmatter-missing",
     "the frontmatter is not a YAML mapping of keys to values", "Write the frontmatter as 'key: value' lines."),
    ("frontmatter-alias", ERR, "episode", "episode-frontmatter-missing",
     "the frontmatter uses YAML anchors, aliases or non-scalar keys", "Write every value out in full; anchors and aliases are not allowed."),
    ("frontmatter-ambiguous", ERR, "episode", None,
     "a frontmatter value reads differently to line-based shelf tools than to YAML", "Write the value on one line, plain or in double quotes (no single quotes, comments, block scalars)."),
    ("field-missing", ERR, "episode", "episode-frontmatter-invalid",
     "a required frontmatter key is missing", "Add the key: id, kind, span, tags and approx_tokens are required."),
    ("field-type-invalid", ERR, "episode", "episode-frontmatter-invalid",
     "a frontmatter value has the wrong type", "Write the value as a single-line string."),
    ("id-mismatch", ERR, "episode", "episode-frontmatter-invalid",
     "the id differs from the file name", "Make id equal the file name without .md (or rename the file)."),
    ("kind-invalid", ERR, "episode", "episode-kind-unknown",
     "kind is not topic, research or session", "Set kind to topic, research or session."),
    ("kind-directory-mismatch", ERR, "episode", None,
     "the episode's kind does not match its category directory", "Move the file to the directory of its kind (topic→topics, research→research, session→sessions) or fix kind."),
    ("span-invalid", ERR, "episode", "episode-frontmatter-invalid",
     "span is empty or not a string", "Set span to the day (YYYY-MM-DD) or range (A..B) the work covered."),
    ("span-format", WARN, "episode", None,
     "span is neither a day nor a day range", "Write span as YYYY-MM-DD or YYYY-MM-DD..YYYY-MM-DD."),
    ("tags-invalid", ERR, "episode", "episode-frontmatter-invalid",
     "tags is not a YAML list of strings", "Write tags as a list, e.g. tags: [cache, edge] (or tags: [])."),
    ("approx-tokens-invalid", ERR, "episode", "episode-frontmatter-invalid",
     "approx_tokens is not a non-negative integer written as plain digits", "Write approx_tokens as plain digits, e.g. approx_tokens: 18000."),
    ("approx-tokens-source-invalid", WARN, "episode", None,
     "approx_tokens_source is not estimate, measured or unmeasured", "Set approx_tokens_source to estimate, measured or unmeasured (or drop it)."),
    ("mode-invalid", ERR, "episode", "episode-frontmatter-invalid",
     "mode is not live or import", "Set mode to live or import (or drop it: absent means live)."),
    ("date-invalid", WARN, "episode", None,
     "date is not YYYY-MM-DD; the ledger falls back to the id's date prefix", "Write date as YYYY-MM-DD (the shelve day)."),
    ("date-missing", ERR, "episode", "ledger-malformed",
     "no ledger date: neither a YYYY-MM-DD date nor a dated id", "Add date: YYYY-MM-DD (the shelve day)."),
    ("retain-until-invalid", WARN, "episode", None,
     "retain_until is not a YYYY-MM-DD date, so purge compares it as text", "Write retain_until as YYYY-MM-DD, or drop it to keep the episode."),
    ("description-too-long", WARN, "episode", None,
     "description is longer than 120 characters and is clamped in INDEX", "Shorten the description to at most 120 characters."),
    ("control-character", ERR, "episode", None,
     "a control character (tab, newline, ...) in a one-line field that reaches the ledger or INDEX", "Replace the control character with a space."),
    ("instruction-in-title", ERR, "episode", None,
     "instruction-shaped text in display_title or description, which INDEX shows to every future session", "Describe the episode; do not address the reader with instructions."),
    ("instruction-in-body", WARN, "episode", None,
     "instruction-shaped text in the episode (prompt injection aimed at a future reader)", "Quote such text as data (e.g. in a code block) or remove it."),
    ("conflict-marker", ERR, "episode", None,
     "a git conflict marker in the episode", "Finish the merge: keep the right text and delete the <<<<<<< ======= >>>>>>> lines."),
    ("heading-malformed", ERR, "episode", None,
     "a line looks like a section heading but is not one ('##Name' or '##<tab>Name')", "Write the heading as '## Name' (two hashes, a space, the name)."),
    ("section-missing", ERR, "episode", "episode-sections-missing",
     "a section the kind requires is missing", "Add the section: topic needs Digest and Decisions; session needs Digest, Timeline, Open threads; research needs Digest and one more."),
    ("digest-missing", ERR, "episode", "episode-sections-missing",
     "no '## Digest' section", "Add a '## Digest' section: at most 120 words on what was decided and what stays open."),
    ("digest-empty", ERR, "episode", None,
     "the Digest section is empty", "Write the digest: at most 120 words on what was decided and what stays open."),
    ("digest-too-long", ERR, "episode", None,
     "the digest has more than 120 words", "Cut the digest to at most 120 words; move detail into other sections."),
    ("digest-referent-we", ERR, "episode", None,
     "the digest speaks in the first person plural", "Name the actors (the team, the agent, the user) instead of we/our/us."),
    ("digest-referent-bare", WARN, "episode", None,
     "a digest sentence opens with a bare it/this/that/they", "Name the thing the sentence is about."),
    ("digest-thin", WARN, "episode", None,
     "the digest has no decision or open-thread cue", "Say what was decided, rejected or left open."),
    ("digest-ungrounded", WARN, "episode", None,
     "few of the digest's content words occur in the body", "Make the digest summarize the body (or add the missing sections)."),
    ("secret", ERR, "episode", None,
     "a credential-shaped string", "Remove the secret (rotate it if it was real); it stays in git history until rewritten."),
    ("policy-pattern-match", ERR, "episode", None,
     "text matching a POLICY.patterns rule", "Remove or redact the text the shelf's policy forbids."),
    # --- derived files, judged on a rendered main ---
    ("ledger-missing", WARN, "derived", "no-ledger",
     "ledger.tsv is missing", "Run memshelf-bot render."),
    ("ledger-malformed", ERR, "derived", "ledger-malformed",
     "a ledger.tsv line is not a well-formed row", "Run memshelf-bot render to regenerate ledger.tsv; never edit it by hand."),
    ("ledger-duplicate-id", ERR, "derived", "ledger-malformed",
     "one episode_id on two ledger rows", "Give each episode a unique id, then run memshelf-bot render."),
    ("ledger-row-missing", WARN, "derived", "episode-without-row",
     "an episode has no ledger row", "Run memshelf-bot render."),
    ("ledger-row-orphan", WARN, "derived", "ledger-orphan-row",
     "a ledger row names no episode", "Run memshelf-bot render."),
    ("meta-corrupt", ERR, "derived", "corrupt-meta",
     "a .meta.json is not valid UTF-8 JSON", "Run memshelf-bot render to regenerate it."),
    ("meta-shape", ERR, "derived", "corrupt-meta",
     "a .meta.json is not an object of {title, description} string entries", "Run memshelf-bot render to regenerate it."),
    ("meta-entry-stale", WARN, "derived", "stale-meta-entry",
     "a .meta.json key names no file", "Run memshelf-bot render."),
    ("index-missing", WARN, "derived", "stale-index",
     "INDEX.md is missing", "Run memshelf-bot render."),
    ("index-entry-missing", WARN, "derived", "stale-index",
     "an episode is not listed in INDEX.md", "Run memshelf-bot render."),
    ("index-link-broken", WARN, "derived", "stale-index",
     "an INDEX.md link points at a file that does not exist", "Run memshelf-bot render."),
    ("index-footer-missing", ERR, "derived", "index-hand-edited",
     "INDEX.md lacks the generator footer (hand-edited?)", "Run memshelf-bot render; never edit INDEX.md by hand."),
    ("index-over-budget", WARN, "derived", None,
     "INDEX.md costs more tokens than its budget of 200 + 80 per entry", "Shorten the term named in the message (titles, descriptions or links)."),
    # --- the PR guard ---
    ("derived-path-touched", ERR, "guard", None,
     "the change edits a file the bot derives", "Drop the change to derived files from the PR; the bot renders them on main."),
    ("path-not-allowed", ERR, "guard", None,
     "the change touches a path that is neither an episode nor allowed", "Move the change to its own PR, or add the path to allow_paths."),
    ("episode-removed", WARN, "guard", None,
     "the change removes an episode (memory is being deleted)", "Make sure the deletion is intended; purge and rollup are the usual ways."),
    ("id-collision", ERR, "guard", None,
     "an added episode's id already exists on the base branch", "Pick a new id (and file name) for the episode."),
]

RULES: dict[str, Rule] = {row[0]: Rule(*row) for row in _TABLE}

