"""No secret from an episode, and no token, reaches the log, an annotation, the summary, an output,
a comment or a pull request body — whatever the flow, including its failures."""

from __future__ import annotations

from memshelf_sandbox.actionrun import StepResult
from tests import action_harness
from tests.action_harness import BOT_TOKEN, Harness, episode
from tests.sandbox_fixtures import issue_comment_event, push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

GITHUB = "ghp_" + "S3cr3tT0k3n" * 3 + "abc"
AWS = "AKIA" + "Q7ZZ4XW2LMNOP3RS"
ENV_VALUE = "hunter2-but-longer-9f8e7d"
BEARER = "eyJhbGciOiJIUzI1NiJ9.payload.sig"
HOST = "db17.corp.example.com"  # the example shelf's POLICY.patterns forbids internal hosts
SECRETS = (GITHUB, AWS, ENV_VALUE, BEARER, HOST, BOT_TOKEN)
LEAKY = episode(
    "2026-09-23-leaky",
    extra=f'notes: "rotated {GITHUB}\tlater"\n',
    body=f"\n## Raw excerpts\n- aws {AWS}\n- DB_PASSWORD={ENV_VALUE}\n- curl -H 'Authorization: Bearer {BEARER}'\n"
         f"- connects to {HOST}\n")


def channels(h: Harness, result: StepResult) -> dict[str, str]:
    """Everything a reader could see after the step; the `::add-mask::` lines are the runner's
    own input (it hides them and masks the value everywhere), so they are left out."""
    log = "\n".join(line for line in result.stdout.split("\n") if not line.startswith("::add-mask::"))
    with h.sb.state.lock:
        comments = "\n".join(c.body for c in h.sb.state.comments.values())
        pulls = "\n".join(f"{p.title}\n{p.body or ''}" for p in h.sb.state.pulls.values())
    return {"log": log, "stderr": result.stderr, "summary": result.summary, "outputs": repr(result.outputs),
            "annotations": repr(result.annotations), "comments": comments, "pull requests": pulls}


def assert_clean(h: Harness, result: StepResult) -> None:
    for name, text in channels(h, result).items():
        unescaped = text.replace("\\", "")  # Markdown escaping (`ghp\_…`) must not hide a leak
        for secret in SECRETS:
            assert secret not in unescaped, f"{secret[:6]}… leaked into the {name}"
    assert result.masks == [BOT_TOKEN]


def test_no_secret_or_token_in_any_channel_of_the_pull_request_flow(harness: Harness) -> None:
    number = harness.open_pr("shelve/leaky", {"docs/topics/2026-09-23-leaky.md": LEAKY}, title="Shelve leaky")
    result = harness.pr_step(number, comment="always")
    assert result.exit_code == 1
    kinds = {a.title for a in result.annotations}
    assert {"memshelf-bot: secret", "memshelf-bot: policy-pattern-match"} <= kinds
    assert_clean(harness, result)
    [sticky] = harness.sticky(number)
    assert "«redacted:github-token»" in sticky.body and "«redacted:aws-access-key»" in sticky.body
    assert "```suggestion\n" in sticky.body.replace("\n  ", "\n")


def test_no_token_in_the_render_flow_even_when_git_fails(harness: Harness) -> None:
    before, after = harness.merge(harness.open_pr("shelve/ok", {"docs/topics/2026-09-22-ups.md":
                                                               episode("2026-09-22-ups")}))
    rendered = harness.push_step(before, after)
    assert rendered.exit_code == 0
    assert_clean(harness, rendered)

    # no checkout and a wrong server URL: the fetch fails, and its message must not carry the token
    empty = harness.tmp / "no-checkout"
    empty.mkdir()
    payload = push_event(harness.sb, "refs/heads/main", before, after, pusher="octo")
    broken = action_harness.run_step(
        workspace=empty, event_name="push", payload=payload, repository=action_harness.REPO,
        api_url=harness.sb.api_url, server_url=harness.sb.api_url + "/nowhere", inputs={"token": BOT_TOKEN},
        home=harness.home)
    assert broken.exit_code == 1, broken.stdout
    assert broken.annotations[0].message.startswith("git fetch failed")
    assert_clean(harness, broken)


def test_no_secret_or_token_when_an_agent_branch_opens_its_pull_request(harness: Harness) -> None:
    """The PR's title and body quote the episode (its display title, its digest): masked too."""
    leakier = LEAKY.replace('display_title: "UPS runtime"', f'display_title: "UPS via {HOST}"').replace(
        "Open: the NUT client on the backup host.", f"Open: rotate {GITHUB} on the backup host.")
    main = harness.sb.store.ref("refs/heads/main") or ""
    after = harness.branch("shelve/leaky", {"docs/topics/2026-09-23-leaky.md": leakier})
    payload = push_event(harness.sb, "refs/heads/shelve/leaky", main, after, pusher="night-shift-agent")
    result = harness.step("push", payload, harness.workspace(after))
    assert result.exit_code == 1 and result.outputs["pr_number"]
    assert_clean(harness, result)
    pull = harness.sb.state.pull(int(result.outputs["pr_number"]))
    assert pull is not None and pull.title.startswith("UPS via «redacted:")
    assert "Open: rotate «redacted:github-token» on the backup host." in (pull.body or "")


def test_no_token_when_resolve_cannot_push(harness: Harness) -> None:
    """A job token that may read but not push: the push fails, and its message carries no token."""
    read_only = "ghs_" + "ReadOnly" * 4 + "wxyz"
    harness.sb.add_token(read_only, "reader-bot[bot]", permission="read")
    harness.branch("shelve/a", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
    number = harness.open_pr("shelve/b", {"docs/topics/2026-09-23-nas.md": episode("2026-09-23-nas")})
    harness.branch("main", {"docs/topics/2026-09-24-dns.md": episode("2026-09-24-dns")})  # something to merge
    asked = harness.sb.github(action_harness.MAINTAINER_TOKEN).get_repo(action_harness.REPO).get_issue(
        number).create_comment("/shelf resolve")
    payload = issue_comment_event(harness.sb, number, "/shelf resolve", user="octo-maintainer", comment_id=asked.id)
    result = harness.step("issue_comment", payload, harness.workspace(harness.sb.store.ref("refs/heads/main") or ""),
                          token=read_only)
    assert result.exit_code == 1
    assert "😕 `/shelf resolve` failed: the token may not write to shelve/b" in result.summary
    for name, text in channels(harness, result).items():
        assert read_only not in text, f"the token leaked into the {name}"
    assert result.masks == [read_only]
