"""The GitHub App front door: a webhook server (`serve`) and job workers (`worker`) on huey.

The App runs the same flows as the Action through the same port; only the front door (a signed
webhook delivery instead of `GITHUB_*`) and the reporter (a check run) differ.
"""
