"""The bot's flows, one per kind of work, whichever front door brought the event: check a pull
request, check a merge queue's group, render a branch, open an agent branch's pull request, answer
`/shelf` commands (resolve, fix, render, help). Each registers beside itself the events it acts on
(`registry.py`, read by `bot.router`), takes a `bot.job.Job`, reaches GitHub only through its port
and returns a `FlowResult` (`result.py`) for the door to turn into its own outputs."""
