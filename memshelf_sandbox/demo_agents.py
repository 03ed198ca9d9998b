"""The demo's second act: agents' branches become pull requests, and `/shelf resolve`.

Two night-shift agents shelve from the same `main`, each an episode and a `recall-log.tsv` row,
and push `shelve/…` branches. The first push makes the bot open a pull request, check it, and
(`auto_merge`, nothing else required) merge it and render `main`, all in one run. The second
branch now conflicts with `main` in the recall log: the bot opens its pull request and says
auto-merge waits. A maintainer comments `/shelf resolve`; the bot merges `main` into the branch in
a throwaway clone, unions the log, pushes, checks the new head and merges it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from .actionrun import StepResult
from .demo_stage import AGENT_TOKEN, BOT_TOKEN, REPO, Demo, expect, heading, show_file

ZERO = "0" * 40
MAINTAINER, MAINTAINER_TOKEN = "homelab-maintainer", "ghp_demoMaintainerToken00000000000000000"
SETTINGS = "# memshelf-bot's settings for this shelf\nauto_merge: true\nallow_paths: [recall-log.tsv]\nbadge: true\n"
BACKUP = ("shelve/2026-09-24-backup-window", "docs/topics/2026-09-24-backup-window.md", "Backup window moved to 03:00",
          "The agent moved the nightly backup window to 03:00 so it no longer overlaps the ZFS scrub. Decided: "
          "snapshots first, then replication. Open: alerting when the window overruns.",
          "2026-09-21-night-shift-backups\tTimeline\t96")
DNS = ("shelve/2026-09-24-dns-cutover", "docs/topics/2026-09-24-dns-cutover.md", "DNS cut over to the new resolver",
       "The agent cut the homelab DNS over to the new resolver on the tower. Decided: keep the old resolver as a "
       "secondary for a week. Open: retire it after the week.",
       "2026-09-20-zfs-recordsize\tDigest\t60")


def agent_episode(stem: str, title: str, digest: str) -> str:
    return (f"# {stem}\n\n---\nid: {stem}\nkind: topic\nspan: {stem[:10]}\ndate: {stem[:10]}\n"
            f'display_title: "{title}"\ntags: [homelab, night-shift]\napprox_tokens: 9000\nmode: live\n---\n\n'
            f"## Digest\n{digest}\n\n## Decisions\n- {digest.split('Decided: ')[1].split('.')[0]}.\n\n"
            f"## Open threads\n- {digest.split('Open: ')[1].rstrip('.')}.\n")


class Night:
    """Act two on the running sandbox of act one."""

    def __init__(self, demo: Demo) -> None:
        self.demo = demo
        self.sb = demo.sb

    def shelve(self, clone: Path, spec: tuple[str, str, str, str, str], base: str) -> str:
        """An agent's clone at `base` shelves one episode and a recall-log row and pushes its branch."""
        branch, path, title, digest, row = spec
        git = self.demo.git
        git("fetch", "--quiet", "origin", base, cwd=clone)
        git("checkout", "--quiet", "--detach", base, cwd=clone)
        (clone / path).write_text(agent_episode(Path(path).stem, title, digest), encoding="utf-8")
        log = clone / "recall-log.tsv"
        log.write_text(log.read_text(encoding="utf-8") + row + "\n", encoding="utf-8")
        git("add", "-A", cwd=clone)
        git("commit", "--quiet", "-m", f"Shelve {Path(path).stem}", cwd=clone)
        git("push", "--quiet", "origin", f"HEAD:refs/heads/{branch}", cwd=clone)
        return git("rev-parse", "HEAD", cwd=clone)

    def pushed(self, branch: str, base: str, head: str) -> StepResult:
        """The bot's run for the push that created `branch` (the runner's workspace at its head)."""
        payload = self.demo.push_payload(ZERO, head, "night-shift-agent", ref=f"refs/heads/{branch}", since=base)
        self.demo.bot_checkout(head)
        return self.demo.step("push", payload)

    def show_pull(self, number: int, body: bool = True) -> Any:
        pull = self.sb.github(BOT_TOKEN).get_repo(REPO).get_pull(number)
        labels = ", ".join(label.name for label in pull.labels)
        statuses = self.sb.github(BOT_TOKEN).get_repo(REPO).get_commit(pull.head.sha).get_combined_status().statuses
        status = ", ".join(f"{s.context}: {s.state}" for s in statuses)
        print(f"  PR #{pull.number} {pull.title!r} ({pull.head.ref} → {pull.base.ref}), labels [{labels}], "
              f"status [{status}], {'merged' if pull.merged else pull.mergeable_state}")
        if body:
            block = pull.body.split("-->", 1)[1].split("<sub>", 1)[0].strip()
            print(textwrap.indent(block, "  ┆ ", predicate=lambda _: True))
        return pull

    def comment_payload(self, number: int, comment: Any) -> dict[str, Any]:
        repo = self.sb.github(BOT_TOKEN).get_repo(REPO)
        return {"action": "created", "issue": repo.get_issue(number).raw_data, "comment": comment.raw_data,
                "repository": repo.raw_data, "sender": comment.raw_data["user"]}


def play_agents(demo: Demo, work: Path) -> None:
    sb, git = demo.sb, demo.git
    sb.add_token(MAINTAINER_TOKEN, MAINTAINER, permission="maintain", integration=False)
    night = Night(demo)
    main = sb.store.ref("refs/heads/main")

    heading("act two: a maintainer turns on auto-merge for agents' branches (.memshelf-bot.yml on main)")
    admin = work / "maintainer"
    git("clone", "--quiet", sb.git_url(MAINTAINER_TOKEN), str(admin), cwd=work)
    (admin / ".memshelf-bot.yml").write_text(SETTINGS, encoding="utf-8")
    git("add", ".memshelf-bot.yml", cwd=admin)
    git("commit", "--quiet", "-m", "memshelf-bot: auto-merge agents' branches", cwd=admin)
    git("push", "--quiet", "origin", "HEAD:refs/heads/main", cwd=admin)
    print(textwrap.indent(SETTINGS, "  "), end="")
    main = sb.store.ref("refs/heads/main")

    heading("two night-shift agents shelve from the same main, each an episode and a recall-log row")
    other = work / "agent-b"
    git("clone", "--quiet", sb.git_url(AGENT_TOKEN), str(other), cwd=work)
    first = night.shelve(demo.agent_dir, BACKUP, main)
    second = night.shelve(other, DNS, main)
    print(f"  pushed {BACKUP[0]} ({first[:12]}) and {DNS[0]} ({second[:12]})")

    heading(f"the bot's run for the push of {BACKUP[0]}: a pull request, checked, merged, main rendered")
    one = night.pushed(BACKUP[0], main, first)
    print(f"  exit {one.exit_code}: pr_number={one.outputs.get('pr_number')} verdict={one.outputs.get('verdict')} "
          f"render commit={one.outputs.get('commit_sha', '')[:12]}")
    pull = night.show_pull(int(one.outputs["pr_number"]))
    expect(one.exit_code == 0 and pull.merged and one.outputs.get("commit_sha") == sb.store.ref("refs/heads/main"),
           "the first agent's pull request to be merged and main rendered in the same run")

    heading(f"the bot's run for the push of {DNS[0]}: its pull request conflicts with main now")
    two = night.pushed(DNS[0], main, second)
    number = int(two.outputs["pr_number"])
    pull = night.show_pull(number)
    sticky = next(c.body for c in pull.get_issue_comments() if c.body.startswith("<!-- memshelf-bot:sticky"))
    print("  the sticky comment says: " + next(line for line in sticky.splitlines() if "Auto-merge" in line))
    expect(two.exit_code == 0 and pull.mergeable_state == "dirty", "the second pull request to conflict")

    heading(f"{MAINTAINER} comments `/shelf resolve` on PR #{number}")
    asked = sb.github(MAINTAINER_TOKEN).get_repo(REPO).get_issue(number).create_comment("/shelf resolve")
    demo.bot_checkout(sb.store.ref("refs/heads/main"))  # an issue_comment run checks out the default branch
    resolved = demo.step("issue_comment", night.comment_payload(number, asked))
    reactions = [r.content for r in sb.github(BOT_TOKEN).get_repo(REPO).get_issue(number).get_comment(asked.id)
                 .get_reactions()]
    reply = [c.body for c in sb.github(BOT_TOKEN).get_repo(REPO).get_issue(number).get_comments()
             if c.user.login == "github-actions[bot]" and not c.body.startswith("<!--")][-1]
    print(f"  exit {resolved.exit_code}; reactions on the comment: {' '.join(reactions)}; the bot's answer:")
    print(textwrap.indent(reply, "  │ ", predicate=lambda _: True))
    pull = night.show_pull(number, body=False)
    final = sb.store.ref("refs/heads/main")
    log = show_file(sb, final, "recall-log.tsv")
    print("  recall-log.tsv on main, both agents' rows kept:")
    print(textwrap.indent(log, "    "), end="")
    expect(resolved.exit_code == 0 and pull.merged and BACKUP[4] in log and DNS[4] in log,
           "the resolved pull request to be merged with both recall-log rows")
    index = show_file(sb, final, "INDEX.md")
    expect(BACKUP[2] in index and DNS[2] in index, "INDEX.md on main to list both agents' episodes")
