# The memshelf-bot GitHub Action image. GitHub runs it as root with the repository mounted at
# /github/workspace (and --workdir set to it), so the image sets no USER and no WORKDIR.
FROM python:3.12-slim

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONUNBUFFERED=1 \
    MPLCONFIGDIR=/opt/memshelf-bot/matplotlib

# git: the bot fetches, diffs and pushes in the workspace (over HTTPS: ca-certificates);
# libcairo2: cairosvg draws PNGs. Versions are not pinned (DL3008): they come from the base
# image's Debian release and its security updates, and a pinned version string breaks the build
# as soon as that release ships a fix.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git libcairo2 \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/*

# Exactly the pinned runtime dependencies (constraints.txt, generated from the virtualenv the test
# suite runs in), as wheels, so no compiler is needed; then the project itself without resolving
# anything more, and `pip check` fails the build if a pin is missing or inconsistent. pip's
# isolated build environment for the project is gone when the RUN ends. Importing the font
# manager builds matplotlib's font cache into MPLCONFIGDIR now rather than on every run.
COPY constraints.txt pyproject.toml README.md LICENSE /usr/src/memshelf-bot/
COPY memshelf_render /usr/src/memshelf-bot/memshelf_render
COPY bot /usr/src/memshelf-bot/bot
RUN pip install --no-cache-dir --only-binary=:all: --no-deps --requirement /usr/src/memshelf-bot/constraints.txt \
 && pip install --no-cache-dir --no-deps /usr/src/memshelf-bot \
 && pip check \
 && rm -rf /usr/src/memshelf-bot \
 && python -c "import matplotlib.font_manager" \
 && memshelf-bot --version

ENTRYPOINT ["memshelf-bot", "action"]
