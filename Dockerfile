# The memshelf-bot GitHub Action image. GitHub runs it as root with the repository mounted at
# /github/workspace (and --workdir set to it), so the image sets no USER and no WORKDIR.
#
# The base is named by tag here and pinned by digest where releases are built: the release
# workflow (.github/workflows/release.yml) maps `python:3.12-slim` to
# `python:3.12-slim@sha256:…` with a BuildKit named context, so every published image starts
# from exactly that base, while a local `docker build .` (and the container smoke test, which
# stands a local image in for the tag) needs no registry. tests/unit/test_release.py checks that every
# FROM here is pinned there.
#
# Two stages: `build` installs the pinned wheels into a virtualenv and keeps of them only what the
# Action and the App load; the final stage is the base, git, libcairo2 and that virtualenv.
FROM python:3.12-slim AS build

ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PIP_NO_CACHE_DIR=1 \
    MPLCONFIGDIR=/opt/memshelf-bot/matplotlib

# Exactly the pinned runtime dependencies (constraints.txt, generated from the virtualenv the test
# suite runs in), as wheels, so no compiler is needed; then the project itself without resolving
# anything more, and `pip check` fails the build if a pin is missing or inconsistent.
COPY constraints.txt pyproject.toml README.md LICENSE /usr/src/memshelf-bot/
COPY memshelf_render /usr/src/memshelf-bot/memshelf_render
COPY bot /usr/src/memshelf-bot/bot
RUN python -m venv /opt/memshelf-bot/venv \
 && /opt/memshelf-bot/venv/bin/pip install --no-cache-dir --only-binary=:all: --no-deps \
      --requirement /usr/src/memshelf-bot/constraints.txt \
 && /opt/memshelf-bot/venv/bin/pip install --no-cache-dir --no-deps /usr/src/memshelf-bot \
 && /opt/memshelf-bot/venv/bin/pip check \
 && /opt/memshelf-bot/venv/bin/pip uninstall --yes --quiet pip setuptools

# What the image keeps of its libraries is derived, not listed: scripts/image_flows.py runs every
# flow once on the example shelf (the CLI's commands, the Action's modes against a stub API on
# loopback, `serve` and `worker`) under scripts/image_keep.py, which records each module, data file
# and library their processes load and deletes the rest of site-packages (the project, dist-info
# metadata and licences stay). matplotlib's font cache is built before (so only the fonts drawn are
# read) and again after (for the fonts kept); then the flows run once more on what is left. git and
# libcairo2 serve the flows as in the final stage; `strip` drops extension modules' symbol tables
# (not the vendored *.libs: auditwheel's patched headers do not survive it).
COPY scripts/image_keep.py scripts/image_flows.py /usr/src/memshelf-bot/scripts/
COPY memshelf_sandbox/data/example-shelf /usr/src/memshelf-bot/example-shelf
# hadolint ignore=DL3003,DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils git libcairo2 \
 && cd /usr/src/memshelf-bot \
 && PY=/opt/memshelf-bot/venv/bin/python \
 && SITE=$("$PY" -c "import sysconfig; print(sysconfig.get_path('purelib'))") \
 && "$PY" -c "import matplotlib.font_manager" \
 && "$PY" scripts/image_keep.py trace trace.log -- "$PY" -I scripts/image_flows.py example-shelf \
 && "$PY" scripts/image_keep.py prune "$SITE" trace.log --whole memshelf-bot \
 && "$PY" scripts/image_keep.py sources trace.log "$("$PY" -c "import sysconfig; print(sysconfig.get_path('stdlib'))")" \
      > /opt/memshelf-bot/stdlib-loaded.txt \
 && find "$SITE" -path '*.libs' -prune -o -type f -name '*.so' -exec strip --strip-unneeded {} + \
 && rm -rf "$MPLCONFIGDIR" && "$PY" -c "import matplotlib.font_manager" \
 && "$PY" -I scripts/image_flows.py example-shelf \
 && /opt/memshelf-bot/venv/bin/memshelf-bot --version

FROM python:3.12-slim

SHELL ["/bin/bash", "-o", "pipefail", "-c"]

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    MPLCONFIGDIR=/opt/memshelf-bot/matplotlib \
    PATH=/opt/memshelf-bot/venv/bin:$PATH

# git: the bot fetches, diffs and pushes in the workspace (over HTTPS: ca-certificates);
# libcairo2: cairosvg draws PNGs. Debian's git depends on perl (for commands the bot never runs:
# send-email, svn, the interactive helpers) and git-man: those are removed again in the same
# layer, so they never reach the image (dpkg records the dependency as unmet; nothing installs
# packages in this image afterwards); so are git's server, mail and shell helpers (the bot runs
# only git itself and the HTTPS remote helper), gitweb and git's Perl modules (no Perl is left to
# run them), and git's second copy of itself in its exec path becomes a hard link to the first. dpkg skips docs, man pages, translations, X11
# locale data and fonts for the new packages (the chart's SVG holds its text as paths, so
# cairosvg draws the PNG without a font). Versions are not pinned (DL3008): they come from the base image's Debian release
# and its security updates, and a pinned version string breaks the build as soon as that
# release ships a fix.
# hadolint ignore=DL3008
RUN printf '%s\n' 'path-exclude=/usr/share/doc/*' 'path-exclude=/usr/share/man/*' \
      'path-exclude=/usr/share/locale/*' 'path-exclude=/usr/share/info/*' 'path-exclude=/usr/share/X11/locale/*' \
      'path-exclude=/usr/share/fonts/*' > /etc/dpkg/dpkg.cfg.d/memshelf-bot-slim \
 && apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git libcairo2 \
 && dpkg-query -W -f '${Package}\n' \
    | grep -E '^(perl|perl-modules-[0-9.]+|libperl[0-9.]+|liberror-perl|git-man)$' \
    | xargs -r dpkg --purge --force-depends \
 && rm -f /usr/lib/git-core/git-shell /usr/lib/git-core/git-daemon /usr/lib/git-core/git-http-backend \
      /usr/lib/git-core/git-http-fetch /usr/lib/git-core/git-http-push /usr/lib/git-core/git-imap-send \
      /usr/lib/git-core/scalar /usr/lib/git-core/git-sh-i18n--envsubst /usr/bin/git-shell /usr/bin/scalar \
 && rm -rf /usr/share/gitweb /usr/share/perl5/Git /usr/share/perl5/Git.pm \
 && cmp /usr/bin/git /usr/lib/git-core/git && ln -f /usr/bin/git /usr/lib/git-core/git \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/debconf/*-old /var/log/apt /var/log/dpkg.log \
 && [ /usr/bin/git -ef /usr/lib/git-core/git ] && git --version

COPY --from=build /opt/memshelf-bot /opt/memshelf-bot
# The base ships its standard library without byte-code, so every container would compile each
# module it imports again (and keep nothing it wrote): the modules the traced flows loaded are
# compiled here (nothing to do on a base that has them). The venv's byte-code came with pip and
# the prune; PYTHONDONTWRITEBYTECODE spares the writes no container keeps. Then cairosvg finds
# libcairo2, and the entry point starts.
RUN python -m compileall -q -i /opt/memshelf-bot/stdlib-loaded.txt \
 && python -c "import cairosvg" && memshelf-bot --version

ENTRYPOINT ["memshelf-bot", "action"]
