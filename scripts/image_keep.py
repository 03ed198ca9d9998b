"""What the Action image keeps of its site-packages: the files its flows were seen to load.

The image's dependencies bring far more than the bot runs (matplotlib's plotting layer and GUI
backends, numpy's random and fft, Pillow's image plugins, redis's module commands…). Rather than
a hand-kept list of what to delete, the Dockerfile's build stage derives what to keep:

    python scripts/image_keep.py trace TRACE -- python scripts/image_flows.py SHELF
    python scripts/image_keep.py prune SITE_PACKAGES TRACE --whole memshelf-bot
    python scripts/image_keep.py sources TRACE STDLIB > LIST   # then, in the final stage:
    python -m compileall -q -i LIST

`trace` runs a command with an audit hook in every Python process it starts (forks and
subprocesses included, through a `sitecustomize` on PYTHONPATH) that writes down each file
opened (source and byte-code of every module, and the data files: fonts, matplotlibrc,
jsonschema's metaschemas…), each extension module loaded and each library `ctypes` opens.

`sources` prints the Python sources under a directory (the standard library's) that the trace
loaded, as source or byte-code: the final stage compiles them, since python:*-slim ships its
standard library without byte-code and a container would otherwise compile each module it
imports again on every start (and keeps nothing it writes). The hook also writes down the
modules a process had imported before it was installed (`encodings`, `site`'s own), so they count.

`prune` keeps, of SITE_PACKAGES: those files, the source or byte-code beside each of them, the
shared libraries the kept extension modules link (from `ldd`: the wheels' vendored `*.libs`),
the files the trace cannot see being read (the CA bundle OpenSSL reads for HTTPS), the named
distributions whole (the project: every command stays), licence files (LICENSE_DEJAVU beside the
fonts kept), every `*.dist-info` but its RECORD (metadata and licences; RECORD would list
deleted files) and top-level `*.pth` files (read before any trace starts); it deletes everything
else and prints what that saved.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

TRACE_ENV = "IMAGE_KEEP_TRACE"
# Installed as `sitecustomize` for the traced command: one line per event, appended with one
# write (atomic with O_APPEND), from any process, forked ones included (the fd is inherited).
SITECUSTOMIZE = '''\
import os, sys
_path = os.environ.get("IMAGE_KEEP_TRACE")
if _path:
    _fd = os.open(_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _image_keep_hook(event, args, _fd=_fd, _write=os.write, _abspath=os.path.abspath, _fsdecode=os.fsdecode):
        if event == "open" or event == "ctypes.dlopen":
            path = args[0]
        elif event == "import":
            path = args[1]
        else:
            return
        if isinstance(path, (str, bytes)) and path:
            _write(_fd, (event + "\\t" + _abspath(_fsdecode(path)) + "\\n").encode("utf-8", "surrogateescape"))

    sys.addaudithook(_image_keep_hook)
    for _module in list(sys.modules.values()):  # imported before the hook: start-up's own
        _image_keep_hook("import", (None, getattr(_module, "__file__", None)))
'''
_PYC = re.compile(r"^(?P<dir>(?:.*/)?)__pycache__/(?P<stem>[^/.]+)\.[^/]+\.pyc$")
_LICENCE = re.compile(r"^(LICEN[CS]E|COPYING|NOTICE)", re.IGNORECASE)  # a font's or a vendored library's terms
_LDD_PATH = re.compile(r"=>\s+(/\S+)\s+\(0x[0-9a-f]+\)")
UNSEEN = ("certifi/cacert.pem",)  # read by OpenSSL, which Python's audit hooks do not see


def traced_files(lines: Iterable[str], site: Path) -> set[str]:
    """The files under `site` a trace names, as paths relative to it."""
    prefix = str(site).rstrip("/") + "/"
    found = set()
    for line in lines:
        _, _, path = line.rstrip("\n").partition("\t")
        if path.startswith(prefix):
            found.add(path[len(prefix):])
    return found


def loaded_sources(lines: Iterable[str], root: Path) -> list[str]:
    """The Python sources under `root` a trace loaded, as source or as byte-code (absolute paths;
    only those that exist)."""
    prefix = str(root).rstrip("/") + "/"
    found = set()
    for rel in traced_files(lines, root):
        source = _partner(rel)
        if source.endswith(".py") and Path(prefix + source).is_file():
            found.add(prefix + source)
    return sorted(found)


def linked_libraries(ldd_output: str, site: Path) -> set[str]:
    """The libraries under `site` that `ldd` resolves (relative paths)."""
    prefix = str(site).rstrip("/") + "/"
    found = (os.path.normpath(m) for m in _LDD_PATH.findall(ldd_output))  # `$ORIGIN/../x.libs` stays in
    return {m[len(prefix):] for m in found if m.startswith(prefix)}


def _partner(rel: str) -> str:
    """A module's byte-code for its source, its source for its byte-code (`__pycache__/X.tag.pyc`)."""
    m = _PYC.match(rel)
    if m:
        return f"{m['dir']}{m['stem']}.py"
    return rel


def to_delete(files: Iterable[str], kept: set[str], whole: set[str] = frozenset()) -> list[str]:
    """The files (relative to site-packages) the image drops: all but the kept ones, byte-code
    whose source is kept, source whose byte-code was loaded, `whole` files, licence files,
    `*.dist-info` (bar RECORD) and top-level `*.pth`."""
    kept_sources = {_partner(rel) for rel in kept}
    drop = []
    for rel in files:
        top = rel.split("/", 1)[0]
        if top.endswith(".dist-info"):
            if rel.endswith("/RECORD"):
                drop.append(rel)
            continue
        if rel in kept or rel in whole or _partner(rel) in kept_sources or ("/" not in rel and rel.endswith(".pth")):
            continue
        if _LICENCE.match(rel.rsplit("/", 1)[-1]):
            continue
        drop.append(rel)
    return sorted(drop)


def _files(site: Path) -> list[str]:
    return sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.is_file() or p.is_symlink())


def _distribution_files(site: Path, names: Iterable[str]) -> set[str]:
    """Every file the named distributions installed, from their RECORD."""
    from importlib.metadata import distributions

    wanted = {re.sub(r"[-_.]+", "-", n).lower() for n in names}
    files = set()
    for dist in distributions(path=[str(site)]):
        if re.sub(r"[-_.]+", "-", dist.metadata["Name"]).lower() in wanted:
            files |= {str(Path(str(f))) for f in dist.files or ()}
    missing = wanted - {re.sub(r"[-_.]+", "-", d.metadata["Name"]).lower() for d in distributions(path=[str(site)])}
    if missing:
        raise SystemExit(f"image_keep: not installed in {site}: {', '.join(sorted(missing))}")
    return files


def _linked(site: Path, kept: set[str]) -> set[str]:
    libs: set[str] = set()
    for rel in sorted(rel for rel in kept if rel.endswith(".so") or ".so." in rel):
        proc = subprocess.run(["ldd", str(site / rel)], capture_output=True, text=True, check=False)
        libs |= linked_libraries(proc.stdout, site)
    return libs


def trace(out: Path, command: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="image-keep-") as hook_dir:
        Path(hook_dir, "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
        env = dict(os.environ, **{TRACE_ENV: str(out.resolve())})
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [hook_dir, env.get("PYTHONPATH")]))
        return subprocess.run(command, env=env, check=False).returncode


def prune(site: Path, trace_file: Path, whole: list[str]) -> int:
    site = site.resolve()
    kept = traced_files(trace_file.read_text(encoding="utf-8", errors="surrogateescape").splitlines(), site)
    if not kept:
        raise SystemExit(f"image_keep: the trace names no file under {site}")
    kept |= {rel for rel in UNSEEN if (site / rel).exists()}
    kept |= _linked(site, kept)
    files = _files(site)
    drop = to_delete(files, kept, _distribution_files(site, whole))
    before = sum((site / rel).lstat().st_size for rel in files)
    for rel in drop:
        (site / rel).unlink()
    for d in sorted((p for p in site.rglob("*") if p.is_dir()), key=lambda p: len(p.parts), reverse=True):
        if not any(d.iterdir()):
            d.rmdir()
    after = sum((site / rel).lstat().st_size for rel in _files(site))
    print(f"image_keep: kept {len(files) - len(drop)} of {len(files)} files, "
          f"{after / 1e6:.1f} of {before / 1e6:.1f} MB")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("trace", help="run COMMAND, writing every file its Python processes load to TRACE")
    p.add_argument("trace", type=Path)
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    p = sub.add_parser("sources", help="print the Python sources under ROOT that TRACE names")
    p.add_argument("trace", type=Path)
    p.add_argument("root", type=Path)
    p = sub.add_parser("prune", help="delete from SITE what TRACE does not name")
    p.add_argument("site", type=Path)
    p.add_argument("trace", type=Path)
    p.add_argument("--whole", action="append", default=[], metavar="DISTRIBUTION",
                   help="keep every file of this distribution")
    args = parser.parse_args(argv)
    if args.command == "trace":
        cmd = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
        if not cmd:
            parser.error("trace: no command given")
        return trace(args.trace, cmd)
    if args.command == "sources":
        lines = args.trace.read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        sources = loaded_sources(lines, args.root.resolve())
        if not sources:  # an empty list would have compileall compile all of sys.path
            raise SystemExit(f"image_keep: the trace names no Python source under {args.root}")
        print(*sources, sep="\n")
        return 0
    return prune(args.site, args.trace, args.whole)


if __name__ == "__main__":
    sys.exit(main())
