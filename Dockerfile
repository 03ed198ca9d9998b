# The memshelf-bot GitHub Action image. GitHub runs it as root with the repository mounted at
# /github/workspace (and --workdir set to it), so the image sets no USER and no WORKDIR.
#
# The base is named by tag here and pinned by digest where releases are built: the release
# workflow (.github/workflows/release.yml) maps `python:3.12-slim` to
# `python:3.12-slim@sha256:…` with a BuildKit named context, so every published image starts
# from exactly that base, while a local `docker build .` (and the container smoke test, which
# stands a local image in for the tag) needs no registry. tests/test_release.py checks that every
# FROM here is pinned there.
#
# Two stages: `build` installs the pinned wheels into a virtualenv and strips what the Action and
# the App never load; the final stage is the base, git, libcairo2 and that virtualenv.
FROM python:3.12-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PIP_NO_CACHE_DIR=1 \
    MPLCONFIGDIR=/opt/memshelf-bot/matplotlib

# Exactly the pinned runtime dependencies (constraints.txt, generated from the virtualenv the test
# suite runs in), as wheels, so no compiler is needed; then the project itself without resolving
# anything more, and `pip check` fails the build if a pin is missing or inconsistent. Then out go
# pip and setuptools, the libraries' own test suites, matplotlib's sample data and the GUI
# backends' assets, the type stubs and C headers nobody compiles against; the byte-code pip
# compiled stays (it saves the start-up of every run). Importing the font manager builds
# matplotlib's font cache into MPLCONFIGDIR now rather than on every run.
COPY constraints.txt pyproject.toml README.md LICENSE /usr/src/memshelf-bot/
COPY memshelf_render /usr/src/memshelf-bot/memshelf_render
COPY bot /usr/src/memshelf-bot/bot
RUN python -m venv /opt/memshelf-bot/venv \
 && /opt/memshelf-bot/venv/bin/pip install --no-cache-dir --only-binary=:all: --no-deps \
      --requirement /usr/src/memshelf-bot/constraints.txt \
 && /opt/memshelf-bot/venv/bin/pip install --no-cache-dir --no-deps /usr/src/memshelf-bot \
 && /opt/memshelf-bot/venv/bin/pip check \
 && /opt/memshelf-bot/venv/bin/pip uninstall --yes --quiet pip setuptools \
 && find /opt/memshelf-bot/venv/lib/python3*/site-packages -type d \( -name tests -o -name sample_data \
      -o -name web_backend -o -name include -o -name f2py -o -name _pyinstaller \) -prune -exec rm -rf {} + \
 && find /opt/memshelf-bot/venv/lib/python3*/site-packages -type f \( -name '*.pyi' -o -name '*.h' -o -name '*.pxd' \
      -o -name py.typed \) -exec rm -f {} + \
 && rm -rf /opt/memshelf-bot/venv/lib/python3*/site-packages/matplotlib/mpl-data/images \
 && /opt/memshelf-bot/venv/bin/python -c "import matplotlib.font_manager" \
 && /opt/memshelf-bot/venv/bin/memshelf-bot --version

FROM python:3.12-slim

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

ENV PYTHONUNBUFFERED=1 \
    MPLCONFIGDIR=/opt/memshelf-bot/matplotlib \
    PATH=/opt/memshelf-bot/venv/bin:$PATH

# git: the bot fetches, diffs and pushes in the workspace (over HTTPS: ca-certificates);
# libcairo2: cairosvg draws PNGs. Debian's git depends on perl (for commands the bot never runs:
# send-email, svn, the interactive helpers) and git-man: those are removed again in the same
# layer, so they never reach the image (dpkg records the dependency as unmet; nothing installs
# packages in this image afterwards). dpkg skips docs, man pages and translations for the new
# packages. Versions are not pinned (DL3008): they come from the base image's Debian release
# and its security updates, and a pinned version string breaks the build as soon as that
# release ships a fix.
# hadolint ignore=DL3008
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
      'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/info/*' > /etc/dpkg/dpkg.cfg.d/memshelf-bot-slim \
 && apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git libcairo2 \
 && dpkg-query -W -f '${Package}\n' \
    | grep -E '^(perl|perl-modules-[0-9.]+|libperl[0-9.]+|liberror-perl|git-man)$' \
    | xargs -r dpkg --purge --force-depends \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
 && git --version

COPY --from=build /opt/memshelf-bot /opt/memshelf-bot

ENTRYPOINT ["memshelf-bot", "action"]
