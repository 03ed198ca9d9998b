"""The core's commands, one module each: it declares its arguments (`register`), then loads the
shelf, calls the domain and prints (`run`). `memshelf_render.cli` only registers them.

The domain (every other module of the core) never imports this package: it returns results, and
a command is the one place that turns them into lines, exit codes and files. A command module
imports nothing heavy at its top, so building the parser costs next to nothing and `validate`
starts fast; each `run` imports what it needs.
"""
