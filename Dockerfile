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
# Two stages: `build` installs the pinned wheels into a virtualenv and strips what the Action and
# the App never load; the final stage is the base, git, libcairo2 and that virtualenv.
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

# Out goes what the Action and the App never load (their import trace: `memshelf-bot render`
# with the chart and the badge, `stats --png`, the GitHub flows): the libraries' test suites and
# test-only extensions, type stubs, C headers, tzdata (the base has the zone files) and contourpy
# (contour plots); of numpy the random, fft, polynomial, distutils and testing packages; of
# matplotlib every backend but SVG (and the Agg/mixed ones it builds on), the plotting layer the
# chart bypasses (pyplot, figure, axes, axis, projections, legends, colorbars, images, the other
# plot types), the triangulation and toolkits, the sample data, GUI images and every font but the
# DejaVu Sans pair the chart draws with (and the last-resort fallback); of fontTools all but the
# glyph-name table matplotlib's text layer reads; of Pillow the image-file plugins but PNG and the
# extensions for fonts, colour management, WebP and AVIF with the libraries only they link, and its
# GUI, font-file and drawing helpers; of redis the module commands (search, JSON, time series,
# Bloom, vector sets), multi-database failover, its HTTP client and OCSP (huey and the store
# speak plain commands); of huey its contrib (Django, Flask, SQL, asyncio) and its consumer
# script; of cffi its compiler (out-of-line builds, setuptools, ctypes backend: cairocffi runs
# in ABI mode); of packaging all but `version`; of pycparser its C generator; cairocffi's test
# modules, jsonschema's benchmarks, pyparsing's diagrams and tools, urllib3's Emscripten,
# pyOpenSSL and SOCKS shims, prometheus_client's Django/aiohttp/Twisted/Graphite bridges and its
# parsers; the wheels' RECORD files (pip is gone). Extension modules lose their symbol tables (`strip`;
# the vendored libraries in *.libs are left alone: auditwheel's patched headers do not survive
# it). Byte-code whose source is gone is dropped; the rest stays, compiled by pip, because it
# saves the start-up of every run. Then the smoke checks: the imports every flow needs, the font
# cache built into MPLCONFIGDIR (so no run rebuilds it), the entry point. (`cd`, not WORKDIR: the
# site-packages path holds the Python version, which only the shell can glob.)
# hadolint ignore=DL3003,DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils \
 && cd /opt/memshelf-bot/venv/lib/python3*/site-packages \
 && find . -type d \( -name tests -o -name include -o -name _pyinstaller \) -prune -exec rm -rf {} + \
 && find . -type f \( -name '*.pyi' -o -name '*.h' -o -name '*.pxd' -o -name py.typed \) -exec rm -f {} + \
 && rm -rf tzdata contourpy \
      numpy/random numpy/fft numpy/polynomial numpy/distutils numpy/f2py numpy/testing numpy/_core/lib \
      numpy/_core/_simd.* numpy/_core/_*_tests.* \
      mpl_toolkits matplotlib/testing matplotlib/tri matplotlib/_tri.* matplotlib/_qhull.* \
      matplotlib/axes matplotlib/projections matplotlib/sphinxext matplotlib/pyplot.py matplotlib/pylab.py \
      matplotlib/figure.py matplotlib/axis.py matplotlib/image.py matplotlib/animation.py \
      matplotlib/contour.py matplotlib/offsetbox.py matplotlib/colorbar.py matplotlib/legend.py \
      matplotlib/legend_handler.py matplotlib/quiver.py matplotlib/sankey.py matplotlib/gridspec.py \
      matplotlib/table.py matplotlib/streamplot.py matplotlib/spines.py matplotlib/_type1font.py \
      matplotlib/mpl-data/sample_data matplotlib/mpl-data/images matplotlib/mpl-data/fonts/afm \
      matplotlib/mpl-data/fonts/pdfcorefonts \
      PIL/_imagingft.* PIL/_imagingcms.* PIL/_webp.* PIL/_avif.* PIL/_imagingmath.* PIL/_imagingmorph.* \
      PIL/_imagingtk.* PIL/PdfParser.py PIL/ImageFont.py PIL/ImageCms.py PIL/ImageDraw.py \
      pillow.libs/libavif-* pillow.libs/libwebp* pillow.libs/libsharpyuv-* \
      pillow.libs/libharfbuzz-* pillow.libs/libfreetype-* pillow.libs/liblcms2-* pillow.libs/libbrotli* \
      pillow.libs/libpng16-* \
      PIL/ImageTk.py PIL/_tkinter_finder.py PIL/ImageQt.py PIL/ImageWin.py PIL/ImageGrab.py PIL/ImageShow.py \
      PIL/PSDraw.py PIL/ImageDraw2.py PIL/FontFile.py PIL/BdfFontFile.py PIL/PcfFontFile.py PIL/GdImageFile.py \
      PIL/WalImageFile.py \
      redis/commands/search redis/commands/json redis/commands/timeseries redis/commands/bf \
      redis/commands/vectorset redis/multidb redis/asyncio/multidb redis/http redis/asyncio/http redis/ocsp.py \
      huey/contrib huey/bin \
      cffi/recompiler.py cffi/vengine_cpy.py cffi/vengine_gen.py cffi/verifier.py cffi/setuptools_ext.py \
      cffi/ffiplatform.py cffi/backend_ctypes.py cffi/pkgconfig.py cffi/_shimmed_dist_utils.py \
      cffi/_imp_emulation.py \
      packaging/licenses packaging/metadata.py packaging/pylock.py packaging/tags.py packaging/specifiers.py \
      packaging/requirements.py packaging/markers.py packaging/ranges.py packaging/_ranges.py packaging/_parser.py \
      packaging/_tokenizer.py packaging/_manylinux.py packaging/_musllinux.py packaging/_elffile.py \
      packaging/dependency_groups.py packaging/direct_url.py \
      pycparser/c_generator.py pycparser/_ast_gen.py \
      cairocffi/test_cairo.py cairocffi/test_numpy.py cairocffi/test_pixbuf.py cairocffi/test_xcb.py \
      jsonschema/benchmarks pyparsing/diagram pyparsing/tools pyparsing/ai \
      urllib3/contrib/emscripten urllib3/contrib/pyopenssl.py urllib3/contrib/socks.py \
      prometheus_client/aiohttp prometheus_client/django prometheus_client/twisted prometheus_client/bridge \
      prometheus_client/parser.py prometheus_client/openmetrics/parser.py \
 && find . -path './*.dist-info/RECORD' -delete \
 && find matplotlib/backends -mindepth 1 -maxdepth 1 ! -name __init__.py ! -name registry.py \
      ! -name backend_svg.py ! -name backend_mixed.py ! -name backend_agg.py ! -name '_backend_agg.*' \
      ! -name __pycache__ -exec rm -rf {} + \
 && find matplotlib/mpl-data/fonts/ttf -type f ! -name DejaVuSans.ttf ! -name DejaVuSans-Bold.ttf \
      ! -name LastResortHE-Regular.ttf ! -name LICENSE_DEJAVU -exec rm -f {} + \
 && find PIL -maxdepth 1 -name '*ImagePlugin.py' ! -name PngImagePlugin.py -exec rm -f {} + \
 && find fontTools -mindepth 1 -maxdepth 1 ! -name __init__.py ! -name agl.py ! -name misc ! -name __pycache__ \
      -exec rm -rf {} + \
 && find fontTools/misc -mindepth 1 -maxdepth 1 ! -name __init__.py ! -name loggingTools.py \
      ! -name textTools.py ! -name __pycache__ -exec rm -rf {} + \
 && find . -path './*.libs' -prune -o -type f -name '*.so' -exec strip --strip-unneeded {} + \
 && /opt/memshelf-bot/venv/bin/python -c "import pathlib; [p.unlink() for p in pathlib.Path('.').rglob('__pycache__/*.pyc') if not (p.parent.parent / (p.name.split('.')[0] + '.py')).exists()]" \
 && /opt/memshelf-bot/venv/bin/python -c "import numpy.linalg, PIL.Image, yaml, jsonschema, github, jwt, nacl.public, kiwisolver, matplotlib.font_manager, waitress, huey, prometheus_client, redis, bot.app.serve, bot.app.worker, bot.app.flows, bot.app.store_redis; from huey import RedisHuey; from matplotlib.backends import backend_svg; from cryptography.hazmat.primitives.asymmetric import rsa" \
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
# cairosvg finds libcairo2 here, and the entry point starts.
RUN python -c "import cairosvg" && memshelf-bot --version

ENTRYPOINT ["memshelf-bot", "action"]
