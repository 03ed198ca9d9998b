"""`memshelf-bot render`: starts the chart helper before anything heavy is imported, so that
matplotlib's import runs on another core while this process imports the renderers and parses."""

from __future__ import annotations


def cli_main(args) -> int:
    from .chartjob import ChartJob

    with ChartJob(fork=not args.check) as chart:
        from .render import run_command

        return run_command(args, chart)
