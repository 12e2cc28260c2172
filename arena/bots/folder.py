"""A bot of many files: a folder (or a ``.zip``/``.tar.gz`` archive of one) with a ``bot.toml``.

A folder is untrusted input, so it becomes a list of checked :class:`Entry` values before
anything else happens: names stay inside the folder, symlinks are kept as links (never followed:
a link to ``/root/.ssh/id_rsa`` must not put that file's bytes in a database) and may point only
inside the folder or to the system trees every sandbox shows (a venv's ``bin/python``), special
files are refused, and the files, their count and their total size are bounded.  The entries are
stored as one deterministic tar (:func:`to_tar`; the same folder gives the same bytes, so the
same hash), and written back out with :func:`write_entries`, which creates every file itself and
every link last, so nothing is written through a link.

The manifest::

    name = "dumper"                  # optional: the name `arena bots add` uses by default
    games = ["reactor"]              # optional: the games it plays
    command = ["python", "bot.py"]   # how to run it, from its folder ("python": arena's own)
"""

from __future__ import annotations

import io
import lzma
import os
import posixpath
import shlex
import stat
import sys
import tarfile
import tomllib
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.core.names import NAME_RULE, valid_name
from arena.errors import UnknownBot

MANIFEST = "bot.toml"
DIR = "{dir}"  # the bot's folder in a command template, as ``{file}`` is a one-file bot's file
MAX_FILES = 20_000
MAX_BYTES = 256 << 20  # a venv with numpy fits; the database keeps every version whole
MAX_MANIFEST = 64 << 10
MAX_WORDS = 64
MAX_WORD = 4096
# Left out of a bot: what running it or versioning it leaves behind, which would make each
# run of the author's own tests a new version.
SKIPPED = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
# Where a link out of the folder may point: the trees every sandbox shows read-only (the
# system's, and arena's interpreter with its packages; tests keep this in step with
# arena.sandbox.launch).
SYSTEM_TREES = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
ARCHIVES = (".zip", ".tar.gz", ".tgz", ".tar")


def visible_trees() -> tuple[str, ...]:
    """The host trees a sandboxed bot sees besides its own files."""
    return (*SYSTEM_TREES, os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix))


@dataclass(frozen=True, slots=True)
class Entry:
    """One member of a bot folder: ``path`` relative to the folder, ``/``-separated."""

    path: str
    kind: str  # "file", "dir" or "link"
    data: bytes = b""
    executable: bool = False
    target: str = ""  # a link's target, as stored


@dataclass(frozen=True, slots=True)
class Manifest:
    """What ``bot.toml`` says."""

    command: tuple[str, ...]
    name: str | None = None
    games: tuple[str, ...] = ()


def is_archive(path: Path) -> bool:
    return path.is_file() and path.name.lower().endswith(ARCHIVES)


# --------------------------------------------------------------------------- reading a folder


def _bad(where: str, why: str) -> UnknownBot:
    return UnknownBot(f"bot {where}: {why}")


def folder_entries(folder: Path) -> list[Entry]:
    """The checked entries of a bot folder on disk (links not followed)."""
    folder = Path(os.path.abspath(folder))
    out: list[Entry] = []
    total = 0
    for top, dirs, files in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED)
        for name in [*dirs, *sorted(files)]:
            full = os.path.join(top, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                out.append(Entry(rel, "link", target=os.readlink(full)))
                if name in dirs:
                    dirs.remove(name)  # os.walk does not enter it either; a link is an entry
            elif stat.S_ISDIR(info.st_mode):
                out.append(Entry(rel, "dir"))
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
                if total > MAX_BYTES:
                    raise _bad(str(folder), f"holds more than {MAX_BYTES >> 20} MB; leave out what the bot does "
                                            "not need to run (data sets, build folders)")
                with open(full, "rb") as fh:
                    data = fh.read(MAX_BYTES + 1)
                out.append(Entry(rel, "file", data, bool(info.st_mode & stat.S_IXUSR)))
            else:
                raise _bad(str(folder), f"{rel} is not a file, folder or link (a pipe, socket or device); remove it")
            if len(out) > MAX_FILES:
                raise _bad(str(folder), f"holds more than {MAX_FILES} files and folders; leave out what the bot "
                                        "does not need to run")
    return check_entries(out, str(folder), folder)


def _walk_bounded(members: Iterable[Entry], where: str) -> list[Entry]:
    out: list[Entry] = []
    total = 0
    for entry in members:
        out.append(entry)
        total += len(entry.data)
        if len(out) > MAX_FILES:
            raise _bad(where, f"holds more than {MAX_FILES} files and folders")
        if total > MAX_BYTES:
            raise _bad(where, f"unpacks to more than {MAX_BYTES >> 20} MB")
    return out


def _read_bounded(stream: io.BufferedIOBase | zipfile.ZipExtFile, where: str, name: str, used: int) -> bytes:
    """A member's bytes, never more than what is left of :data:`MAX_BYTES` (a header may lie)."""
    data = stream.read(MAX_BYTES - used + 1)
    if used + len(data) > MAX_BYTES:
        raise _bad(where, f"unpacks to more than {MAX_BYTES >> 20} MB (at {name})")
    return data


def _zip_entries(path: Path) -> Iterator[Entry]:
    where = str(path)
    used = 0
    with zipfile.ZipFile(path) as archive:
        infos = archive.infolist()
        if len(infos) > MAX_FILES:
            raise _bad(where, f"holds more than {MAX_FILES} files and folders")
        for info in infos:
            mode = info.external_attr >> 16
            if info.is_dir():
                yield Entry(info.filename.rstrip("/"), "dir")
                continue
            with archive.open(info) as stream:
                data = _read_bounded(stream, where, info.filename, used)
            used += len(data)
            if stat.S_ISLNK(mode):
                yield Entry(info.filename, "link", target=data.decode("utf-8", "replace"))
            elif stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                raise _bad(where, f"{info.filename} is not a file, folder or link")
            else:
                yield Entry(info.filename, "file", data, bool(mode & stat.S_IXUSR))


def _tar_entries(source: Path | bytes) -> Iterator[Entry]:
    where = str(source) if isinstance(source, Path) else "package"
    used = 0
    opened = (tarfile.open(source, "r:*") if isinstance(source, Path)
              else tarfile.open(fileobj=io.BytesIO(source), mode="r:"))
    with opened as archive:
        count = 0
        for member in archive:  # streamed: a million headers are never held at once
            count += 1
            if count > MAX_FILES:
                raise _bad(where, f"holds more than {MAX_FILES} files and folders")
            name = member.name
            if member.isdir():
                yield Entry(name.rstrip("/"), "dir")
            elif member.issym():
                yield Entry(name, "link", target=member.linkname)
            elif member.isreg():
                stream = archive.extractfile(member)
                assert stream is not None
                data = _read_bounded(stream, where, name, used)  # type: ignore[arg-type]
                used += len(data)
                yield Entry(name, "file", data, bool(member.mode & stat.S_IXUSR))
            elif member.islnk():
                raise _bad(where, f"{name} is a hard link; archive the file itself")
            else:
                raise _bad(where, f"{name} is not a file, folder or link (a device or pipe)")


def archive_entries(path: Path) -> list[Entry]:
    """The checked entries of a ``.zip`` or ``.tar(.gz)`` bot archive; an archive whose one
    top-level folder holds the manifest is that folder."""
    where = str(path)
    try:
        raw = _walk_bounded(_zip_entries(path) if path.name.lower().endswith(".zip") else _tar_entries(path), where)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, zlib.error, lzma.LZMAError) as exc:
        # One line: tarfile's error for a file that no method opens lists each method on a line.
        raise _bad(where, f"not a readable archive ({' '.join(str(exc).split())})") from None
    entries = [Entry(_clean(e.path, where), e.kind, e.data, e.executable, e.target) for e in raw]
    entries = [e for e in entries if e.path]
    if not any(e.path == MANIFEST for e in entries):
        tops = {e.path.split("/")[0] for e in entries}
        if len(tops) == 1:
            top = tops.pop() + "/"
            entries = [Entry(e.path[len(top):], e.kind, e.data, e.executable, e.target)
                       for e in entries if e.path.startswith(top)]
    return check_entries(entries, where, None)


def package_entries(content: bytes) -> list[Entry]:
    """The entries of a stored package (:func:`to_tar`), checked again: a database is a file
    anyone may have edited."""
    return check_entries(_walk_bounded(_tar_entries(content), "package"), "package", None)


def _clean(name: str, where: str) -> str:
    """A member's name as a relative path inside the folder, or an error."""
    if "\\" in name or "\x00" in name:
        raise _bad(where, f"member {name!r} has a backslash or NUL in its name")
    if name.startswith("/"):
        raise _bad(where, f"member {name!r} has an absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise _bad(where, f"member {name!r} points out of the folder (..)")
    return "/".join(parts)


def check_entries(entries: list[Entry], where: str, folder: Path | None) -> list[Entry]:
    """Refuse what must not be stored or written: names out of the folder, twice the same name,
    a member under a link, links out of the folder to what no sandbox shows; the entries sorted."""
    seen: dict[str, Entry] = {}
    for entry in entries:
        path = _clean(entry.path, where)
        if path != entry.path or not path:
            raise _bad(where, f"member {entry.path!r} is not a plain relative path")
        if path in seen:
            raise _bad(where, f"{path} is in it twice")
        if any(part in SKIPPED for part in path.split("/")):
            continue
        seen[path] = entry
    for path, entry in seen.items():
        parents = path.split("/")[:-1]
        for i in range(1, len(parents) + 1):
            parent = seen.get("/".join(parents[:i]))
            if parent is not None and parent.kind != "dir":
                raise _bad(where, f"{path} is inside {parent.path}, which is a {parent.kind}, not a folder")
        if entry.kind == "link":
            _check_link(entry, where, folder, seen)
    return [seen[p] for p in sorted(seen)]


def _check_link(entry: Entry, where: str, folder: Path | None, members: dict[str, Entry]) -> None:
    target = entry.target
    if not target or "\x00" in target:
        raise _bad(where, f"link {entry.path} has no target")
    if target.startswith("/"):
        inside = folder is not None and (target == str(folder) or target.startswith(str(folder) + "/"))
        if inside:
            raise _bad(where, f"link {entry.path} points into the folder by its absolute path ({target}), which "
                              "is not where the bot runs from; make it a relative link")
        trees = visible_trees()
        if not any(target == t or target.startswith(t.rstrip("/") + "/") for t in trees):
            raise _bad(where, f"link {entry.path} points to {target}, outside the folder, which the sandbox does "
                              f"not show (it shows only the bot's folder and {', '.join(trees)}); copy what it "
                              "names into the folder (a venv: build it from /usr/bin/python3 or from the Python "
                              f"arena runs on, {os.path.realpath(sys.executable)})")
        return
    # Walked as the kernel walks it: through a link on the way (``venv/../..``), the text says
    # nothing of where it ends, so that is refused.
    parts = [p for p in posixpath.dirname(entry.path).split("/") if p]
    words = [w for w in target.split("/") if w not in ("", ".")]
    for i, word in enumerate(words):
        if word == "..":
            if not parts:
                raise _bad(where, f"link {entry.path} points out of the folder ({target}); copy what it names "
                                  "into the folder")
            parts.pop()
            continue
        parts.append(word)
        on_the_way = members.get("/".join(parts))
        if on_the_way is not None and on_the_way.kind == "link" and i < len(words) - 1:
            raise _bad(where, f"link {entry.path} ({target}) goes through the link {on_the_way.path}; "
                              "point it at what that link names")


# --------------------------------------------------------------------------- storing and writing


def to_tar(entries: list[Entry]) -> bytes:
    """The entries as one tar whose bytes depend only on the entries: sorted, no times, owners or
    modes beyond executable or not."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as archive:
        for entry in entries:
            info = tarfile.TarInfo(entry.path)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if entry.kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                archive.addfile(info)
            elif entry.kind == "link":
                info.type, info.mode, info.linkname = tarfile.SYMTYPE, 0o777, entry.target
                archive.addfile(info)
            else:
                info.size, info.mode = len(entry.data), 0o755 if entry.executable else 0o644
                archive.addfile(info, io.BytesIO(entry.data))
    return buffer.getvalue()


def write_entries(entries: list[Entry], target: Path) -> None:
    """Write checked entries into ``target``, a new empty folder: folders and files first (each
    made here, never opened through a link), links last."""
    target.mkdir(mode=0o755)
    for entry in entries:
        if entry.kind == "dir":
            (target / entry.path).mkdir(mode=0o755, parents=True, exist_ok=True)
    for entry in entries:
        if entry.kind == "file":
            path = target / entry.path
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "wb") as fh:
                fh.write(entry.data)
            os.chmod(path, 0o755 if entry.executable else 0o644)
    for entry in entries:
        if entry.kind == "link":
            path = target / entry.path
            path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            os.symlink(entry.target, path)
    for top, dirs, _files in os.walk(target):
        for d in dirs:
            os.chmod(os.path.join(top, d), 0o755)  # the bot's own uid must read every file


# --------------------------------------------------------------------------- the manifest


def manifest(entries: list[Entry], where: str) -> Manifest:
    """The checked manifest of a bot folder; its command's words that name a file of the folder
    become ``{dir}/...`` (see :func:`command_template`)."""
    found = next((e for e in entries if e.path == MANIFEST), None)
    if found is None or found.kind != "file":
        raise _bad(where, f"a bot folder needs a {MANIFEST} with at least: command = [\"python\", \"bot.py\"]")
    if len(found.data) > MAX_MANIFEST:
        raise _bad(where, f"{MANIFEST} is larger than {MAX_MANIFEST >> 10} KB")
    try:
        data = tomllib.loads(found.data.decode("utf-8-sig"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise _bad(where, f"{MANIFEST} is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - {"name", "games", "game", "command"})
    if unknown:
        raise _bad(where, f"{MANIFEST}: unknown field {unknown[0]!r} (allowed: name, games, command)")
    command = data.get("command")
    if isinstance(command, str):
        try:
            command = shlex.split(command)
        except ValueError as exc:
            raise _bad(where, f"{MANIFEST}: command: {exc}") from None
    if (not isinstance(command, list) or not command or len(command) > MAX_WORDS
            or not all(isinstance(w, str) and w and len(w) <= MAX_WORD and "\x00" not in w for w in command)):
        raise _bad(where, f"{MANIFEST}: command must be a list of 1-{MAX_WORDS} words, such as [\"python\", \"bot.py\"]")
    name = data.get("name")
    if name is not None and not valid_name(name):
        raise _bad(where, f"{MANIFEST}: name {name!r} is not allowed: a name is {NAME_RULE}")
    games = data.get("games", data.get("game", []))
    if isinstance(games, str):
        games = [games]
    if not isinstance(games, list) or not all(isinstance(g, str) and valid_name(g) for g in games) or len(games) > 16:
        raise _bad(where, f"{MANIFEST}: games must be a list of game names, such as [\"reactor\"]")
    return Manifest(tuple(command), name, tuple(games))


def command_template(entries: list[Entry], command: tuple[str, ...], where: str) -> list[str]:
    """The manifest's command as a template: ``python``/``node`` stay words for this machine's
    interpreters, and a word that names a member of the folder becomes ``{dir}/member``."""
    members = {e.path: e for e in entries}
    out: list[str] = []
    for i, word in enumerate(command):
        if DIR in word:
            out.append(word)
            continue
        rel = posixpath.normpath(word) if not word.startswith("/") else None
        if rel is not None and rel in members and not rel.startswith("../"):
            out.append(f"{DIR}/{rel}")
        elif i == 0 and word in ("python", "python3", "node"):
            out.append("python" if word.startswith("python") else "node")
        elif i == 0 and not word.startswith("/"):
            raise _bad(where, f"{MANIFEST}: command starts with {word!r}, which is not in the folder; start it with "
                              "\"python\", \"node\", a file of the folder (\"./bot\", \"venv/bin/python\") or an "
                              "absolute path under /usr")
        else:
            out.append(word)
    first = members.get(out[0][len(DIR) + 1:]) if out[0].startswith(DIR + "/") else None
    if first is not None and first.kind == "file" and not first.executable:
        raise _bad(where, f"{MANIFEST}: command runs {first.path}, which is not executable; chmod +x it, or run it "
                          "with an interpreter (\"python\", \"node\")")
    return out
