"""The Action's flows, one per kind of event: pull request, render on main, agent-branch push
(open-pr), `/shelf` commands in a pull request's conversation (resolve, render, help)."""
