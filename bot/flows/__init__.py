"""The bot's flows, one per kind of event, whichever front door brought it: pull request, render
on main, agent-branch push (open-pr), `/shelf` commands in a pull request's conversation
(resolve, render, help). Each takes a `bot.job.Job` and reaches GitHub only through its port."""
