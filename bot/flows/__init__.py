"""The Action's flows, one per kind of event: pull request, render on main, agent-branch push."""
