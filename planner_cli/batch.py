"""Cron batch rescheduling (spec/cli.md "batch"): many exports → previews, journal, lock, resume.

Decisions where the spec is silent (docs/cron.md): items are named after their file's stem
(sanitised, collisions numbered in input order); the parent process alone writes previews and
the journal, a journal line is appended (flush+fsync) only after its preview is in place, and a
skipped item still reports its recorded exit code; the batch exit code is the most severe item
code by 0 < 3 < 4 < 1.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import glob
import hashlib
import json
import os
import re
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from planner_cli import __version__
from planner_cli.errors import InputError, LockError, PlannerError, Problem, UsageError
from planner_cli.io.files import atomic_write, dumps

if TYPE_CHECKING:
    from planner_cli.io.loader import Loaded

JOURNAL_NAME = "journal.jsonl"
LOCK_NAME = ".planner-batch.lock"
SUMMARY_NAME = "summary.json"
PREVIEW_SUFFIX = ".preview.json"
EXPORT_SUFFIXES = (".json", ".yaml", ".yml")

# exit codes of items, least to most severe; the batch exits with the most severe one
SEVERITY = {0: 0, 3: 1, 4: 2, 1: 3}
SLOWEST = 5


def worst_code(codes: Iterable[int]) -> int:
    """The most severe exit code by 0 < 3 < 4 < 1 (an unknown code counts as 1)."""
    worst = 0
    for code in codes:
        code = code if code in SEVERITY else 1
        if SEVERITY[code] > SEVERITY[worst]:
            worst = code
    return worst


# -- items ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ItemOptions:
    """What every item of a run gets; part of the settings hash (workers and Dask are not)."""

    now: str | None = None
    instruction: str | None = None
    llm: str | None = None
    plan_file: str | None = None
    mode: str = "plan-solve"
    solver: str | None = None
    seed: int | None = None
    time_limit: float | None = None
    task_class: tuple[int, ...] | None = None
    lang: str = "zh"
    record: str | None = None
    rough: bool = True


@dataclass(frozen=True)
class Job:
    """One export to process; picklable, so it travels to pool processes and Dask workers."""

    index: int
    name: str
    path: str
    options: ItemOptions
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def preview_name(self) -> str:
        return self.name + PREVIEW_SUFFIX


@dataclass
class ItemResult:
    """What a worker sends back: the preview text (None when the item failed) and its verdict."""

    index: int
    name: str
    path: str
    exit_code: int
    outcome: str
    message: str = ""
    input_sha256: str | None = None
    preview_text: str | None = None
    duration_s: float = 0.0
    skipped: bool = False
    preview_sha256: str | None = None

    def public(self) -> dict[str, Any]:
        """The item as summary.json shows it (no preview text)."""
        data = asdict(self)
        data.pop("preview_text")
        data.pop("index")
        data["preview"] = (self.name + PREVIEW_SUFFIX) if self.preview_sha256 else None
        data["duration_s"] = round(self.duration_s, 3)
        return data


Producer = Callable[[str, ItemOptions, dict[str, Any]], tuple[dict[str, Any], int]]


def uses_engine(options: ItemOptions) -> bool:
    """An instruction, a plan file or an LLM make an item a `planner plan` run; else a layout."""
    return bool(options.instruction or options.plan_file or options.llm not in (None, "none"))


def produce_preview(
    path: str, options: ItemOptions, settings: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """The preview of one input and its exit code, as `planner plan`/`planner layout` give them."""
    from planner_cli.io.loader import load_any

    scope = list(options.task_class) if options.task_class else None
    loaded = load_any(path, scope)
    solver_section = _solver_section(options, settings)
    if not uses_engine(options):
        return _layout_preview(loaded, scope, options, solver_section)
    return _plan_preview(loaded, scope, options, {**settings, "solver": solver_section})


def _solver_section(options: ItemOptions, settings: dict[str, Any]) -> dict[str, Any]:
    """The `solver` settings with --seed and --time-limit applied (validated)."""
    from planner_cli.solver.settings import SolverSettings

    section = dict(settings.get("solver") or {})
    if options.seed is not None:
        section["random_seed"] = options.seed
    if options.time_limit is not None:
        section["time_limit_s"] = options.time_limit
    SolverSettings.from_dict(section)
    return section


def _layout_preview(
    loaded: Loaded, scope: list[int] | None, options: ItemOptions, solver_section: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """The preview `planner layout` writes, through the same function."""
    from planner_cli.engine.api import layout_preview

    preview, result = layout_preview(
        loaded,
        scope=scope,
        solver=options.solver or "cpsat",
        solver_section=solver_section,
        now=options.now,
        lang=options.lang,
    )
    return preview, 3 if result.pending else 0


def _plan_preview(
    loaded: Loaded, scope: list[int] | None, options: ItemOptions, settings: dict[str, Any]
) -> tuple[dict[str, Any], int]:
    """`planner plan` through the engine's own entry point, silently (no events shown); with
    --now or --solver the rough layout runs first, outside the engine (api.lay_out_first)."""
    from planner_cli.engine.api import PlanOptions, lay_out_first, plan_preview
    from planner_cli.engine.events import Events

    prelaid = None
    if options.rough and (options.now is not None or options.solver is not None):
        loaded, prelaid = lay_out_first(
            loaded,
            now=options.now,
            solver=options.solver,
            solver_section=settings["solver"],
            scope=scope,
            lang=options.lang,
        )
    plan_options = PlanOptions(
        instruction=options.instruction,
        mode=options.mode,
        llm=None if options.plan_file else options.llm,
        plan_file=options.plan_file,
        record=options.record,
        lang=options.lang,
        rough=options.rough,
        prelaid=prelaid,
        now=options.now,
    )
    out = plan_preview(loaded, plan_options, settings, events=Events())
    return out.preview, out.exit_code


_NOW = re.compile(r"^\s*\d+:\d+(?::\d+)?\s*$")


def check_options(options: ItemOptions) -> None:
    """Refuse, before any item runs, options that would fail every item the same way."""
    if options.now is not None and not _NOW.match(options.now):
        try:
            dt.date.fromisoformat(options.now.strip())
        except ValueError:
            raise UsageError(
                f"--now: expected WEEK:DAY[:SECTION] or a date like 2026-10-07 (got {options.now!r})"
            ) from None
    llm = options.llm
    if llm is not None and llm not in ("none", "openai") and not llm.startswith("replay:"):
        raise UsageError(f"--llm: expected openai, replay:FILE or none (got {llm!r})")
    if llm and llm.startswith("replay:") and not Path(llm[len("replay:") :]).is_file():
        raise InputError(llm[len("replay:") :], [Problem("", "cassette file not found")])
    if options.plan_file is not None and llm not in (None, "none"):
        raise UsageError("--plan-file runs without an LLM; leave out --llm")
    if options.plan_file is not None and not Path(options.plan_file).is_file():
        raise InputError(options.plan_file, [Problem("", "file not found")])


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _outcome_of(preview: dict[str, Any], code: int) -> str:
    run = preview.get("run")
    if isinstance(run, dict) and isinstance(run.get("outcome"), str):
        return str(run["outcome"])
    return {0: "completed", 3: "partial", 4: "fallback"}.get(code, "error")


def _problem_of(preview: dict[str, Any], code: int) -> str:
    """A one-line reason for a non-zero item that still wrote a preview."""
    if code == 0:
        return ""
    metrics = preview.get("metrics") or {}
    parts = []
    pending = metrics.get("pending") if isinstance(metrics, dict) else None
    if pending:
        parts.append(f"{pending} task(s) left pending")
    run = preview.get("run") or {}
    failed = [
        s.get("id")
        for r in (run.get("rounds") or [] if isinstance(run, dict) else [])
        for s in (r.get("steps") or [])
        if isinstance(s, dict) and s.get("status") == "failed"
    ]
    if failed:
        parts.append("failed steps: " + ", ".join(str(f) for f in failed))
    if code == 4:
        parts.insert(0, "LLM unusable, rough layout only")
    return "; ".join(parts) or _one_line(preview.get("summary") or "incomplete")


def process_item(job: Job, produce: Producer = produce_preview) -> ItemResult:
    """Run one item; every failure becomes a result with exit code 1 and a one-line message."""
    start = time.perf_counter()
    result = ItemResult(job.index, job.name, job.path, 1, "error")
    try:
        result.input_sha256 = hashlib.sha256(Path(job.path).read_bytes()).hexdigest()
    except OSError:
        result.input_sha256 = None
    try:
        preview, code = produce(job.path, job.options, job.settings)
        result.preview_text = dumps(preview)
        result.exit_code = code
        result.outcome = _outcome_of(preview, code)
        result.message = _problem_of(preview, code)
    except PlannerError as exc:
        result.message = _one_line("; ".join(exc.lines()))
    except Exception as exc:  # an item's bug must not take the batch down
        result.message = f"error: internal error: {type(exc).__name__}: {_one_line(str(exc))}"
    result.duration_s = time.perf_counter() - start
    return result


# -- inputs and names -------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^\w.-]+")
_GLOB_CHARS = re.compile(r"[*?\[]")


def safe_stem(path: str) -> str:
    """A file-name-safe item name from the input's stem: no separators, no leading dots."""
    name = Path(path).name
    stem = name[: -len(Path(name).suffix)] if Path(name).suffix else name
    stem = _UNSAFE.sub("_", unicodedata.normalize("NFC", stem)).lstrip(".-_")
    return stem[:120] or "item"


def assign_names(paths: Sequence[str]) -> list[str]:
    """One name per path, unique ignoring case; later collisions get -2, -3, … in input order."""
    taken: set[str] = set()
    names = []
    for path in paths:
        base = safe_stem(path)
        name, n = base, 1
        while name.casefold() in taken:
            n += 1
            name = f"{base}-{n}"
        taken.add(name.casefold())
        names.append(name)
    return names


def _hidden(rel: Path) -> bool:
    return any(part.startswith(".") for part in rel.parts)


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
    except ValueError:
        return False
    return True


def discover(inputs: Sequence[str], out: Path) -> tuple[list[str], list[str]]:
    """Input paths in a deterministic order, and warnings (globs that matched nothing).

    A file is taken as given; a directory contributes its *.json/*.yaml/*.yml files, recursively,
    sorted, skipping hidden ones, previews and anything inside OUT; a glob its sorted matches. A
    path that does not exist is kept, so that it fails as an item with its own message.
    """
    out_dir = out.resolve()
    found: list[str] = []
    warnings: list[str] = []
    for raw in inputs:
        p = Path(raw)
        if p.is_dir():
            for child in sorted(p.rglob("*"), key=lambda c: c.relative_to(p).as_posix()):
                rel = child.relative_to(p)
                if (
                    child.is_file()
                    and child.suffix.lower() in EXPORT_SUFFIXES
                    and not child.name.endswith(PREVIEW_SUFFIX)
                    and not _hidden(rel)
                    and not _inside(child, out_dir)
                ):
                    found.append(str(child))
        elif p.exists():
            found.append(raw)
        elif _GLOB_CHARS.search(raw):
            matches = [
                m
                for m in sorted(glob.glob(raw, recursive=True))
                if Path(m).is_file() and not _inside(Path(m), out_dir)
            ]
            if not matches:
                warnings.append(f"warning: {raw}: no file matches this pattern")
            found.extend(matches)
        else:
            found.append(raw)
    seen: set[str] = set()
    unique = []
    for path in found:
        key = str(Path(path).resolve())
        if key not in seen:
            seen.add(key)
            unique.append(path)
    return unique, warnings


# -- settings hash ----------------------------------------------------------------------------


def _file_hash(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def settings_hash(options: ItemOptions, settings: dict[str, Any]) -> str:
    """Everything that can change a preview besides the input: options, settings, plan/cassette."""
    llm = options.llm or ""
    cassette = llm[len("replay:") :] if llm.startswith("replay:") else None
    relevant = {k: v for k, v in settings.items() if k not in ("batch", "eval")}
    payload: dict[str, Any] = {
        "planner": __version__,
        "options": asdict(options),
        "plan_sha256": _file_hash(options.plan_file),
        "cassette_sha256": _file_hash(cassette),
        "settings": relevant,
    }
    if uses_engine(options) and not options.plan_file and not cassette:
        # a live endpoint: which one (never the key itself, only whether one is set)
        payload["endpoint"] = {
            "base_url": os.environ.get("OPENAI_BASE_URL"),
            "key_set": bool(os.environ.get("OPENAI_API_KEY")),
        }
    return hashlib.sha256(dumps(payload).encode("utf-8")).hexdigest()


# -- lock and journal ---------------------------------------------------------------------------


@contextlib.contextmanager
def batch_lock(out: Path) -> Iterator[None]:
    """Hold OUT/.planner-batch.lock (flock, non-blocking); a held lock raises LockError (75)."""
    import fcntl

    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PlannerError(f"--out {out}: cannot create the directory ({exc.strerror})") from None
    lock_path = out / LOCK_NAME
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise LockError(
                f"{out}: another planner batch run is active (it holds {lock_path}); "
                "nothing was done — try again when it has finished"
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)


class Journal:
    """OUT/journal.jsonl: one JSON object per line; `done` lines are what a rerun trusts."""

    def __init__(self, out: Path) -> None:
        self.path = out / JOURNAL_NAME
        self._fh: IO[str] | None = None

    def read(self) -> list[dict[str, Any]]:
        """Every well-formed record; a torn last line (a crash mid-write) is ignored."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        records = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(record, dict):
                records.append(record)
        return records

    def completed(self) -> dict[str, dict[str, Any]]:
        """The latest `done` record of each item name."""
        latest: dict[str, dict[str, Any]] = {}
        for record in self.read():
            if record.get("event") == "done" and isinstance(record.get("name"), str):
                latest[record["name"]] = record
        return latest

    def compact(self) -> None:
        """Keep only the latest `done` record per item (atomically), so cron runs stay small."""
        if not self.path.exists():
            return
        keep = sorted(self.completed().values(), key=lambda r: r["name"])
        atomic_write(
            self.path,
            "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in keep),
        )

    def append(self, record: dict[str, Any]) -> None:
        """Append one line, flushed and fsynced before returning."""
        if self._fh is None:
            self._fh = open(self.path, "a+", encoding="utf-8", newline="\n")  # noqa: SIM115
            self._fh.seek(0, os.SEEK_END)
            if self._fh.tell() > 0:
                self._fh.seek(self._fh.tell() - 1)
                last = self._fh.read(1)
                self._fh.seek(0, os.SEEK_END)
                if last != "\n":
                    self._fh.write("\n")
        self._fh.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


# -- progress ---------------------------------------------------------------------------------


class Progress:
    """A one-line bar on a terminal, one plain line per item otherwise (stderr)."""

    def __init__(self, total: int, stream: IO[str] | None = None, tty: bool | None = None) -> None:
        self.total = total
        self.done = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = self.stream.isatty() if tty is None else tty

    def update(self, result: ItemResult) -> None:
        self.done += 1
        status = "skipped" if result.skipped else result.outcome
        if self.tty:
            filled = 30 * self.done // max(self.total, 1)
            bar = "#" * filled + "." * (30 - filled)
            line = f"[{bar}] {self.done}/{self.total} {result.name}: {status}"
            self.stream.write("\r\033[K" + line[: self.columns])
        else:
            self.stream.write(
                f"[{self.done}/{self.total}] {result.name}: {status} (exit {result.exit_code})\n"
            )
        self.stream.flush()

    @property
    def columns(self) -> int:
        import shutil

        return max(20, shutil.get_terminal_size().columns - 1)

    def close(self) -> None:
        if self.tty and self.done:
            self.stream.write("\r\033[K")
            self.stream.flush()


# -- the run ------------------------------------------------------------------------------------


@dataclass
class BatchReport:
    out: str
    items: list[ItemResult]
    warnings: list[str]

    @property
    def exit_code(self) -> int:
        return worst_code(item.exit_code for item in self.items)

    def summary(self) -> dict[str, Any]:
        ran = [i for i in self.items if not i.skipped]
        slowest = sorted(ran, key=lambda i: (-i.duration_s, i.index))[:SLOWEST]
        return {
            "kind": "batch-summary",
            "version": 1,
            "planner": __version__,
            "out": self.out,
            "total": len(self.items),
            "ran": len(ran),
            "skipped": len(self.items) - len(ran),
            "outcomes": dict(sorted(Counter(i.outcome for i in self.items).items())),
            "exit_code": self.exit_code,
            "slowest": [
                {"name": i.name, "path": i.path, "duration_s": round(i.duration_s, 3)}
                for i in slowest
            ],
            "failures": [
                {
                    "name": i.name,
                    "path": i.path,
                    "exit_code": i.exit_code,
                    "outcome": i.outcome,
                    "message": i.message,
                }
                for i in self.items
                if i.exit_code != 0
            ],
            "warnings": self.warnings,
            "items": [i.public() for i in self.items],
        }

    def text(self) -> str:
        data = self.summary()
        counts = ", ".join(f"{n} {o}" for o, n in data["outcomes"].items()) or "no items"
        lines = [
            f"batch: {data['total']} item(s) in {self.out}: {counts}"
            f" ({data['skipped']} skipped as unchanged); exit {data['exit_code']}"
        ]
        if data["slowest"] and data["ran"]:
            lines.append(
                "slowest: "
                + ", ".join(f"{s['name']} {s['duration_s']:.2f} s" for s in data["slowest"])
            )
        if data["failures"]:
            lines.append("failures:")
            lines.extend(
                f"  {f['name']} (exit {f['exit_code']}, {f['outcome']}): {f['message']}"
                for f in data["failures"]
            )
        return "\n".join(lines)


Runner = Callable[[Job], ItemResult]


def _skip_result(job: Job, record: dict[str, Any], input_sha: str) -> ItemResult:
    return ItemResult(
        job.index,
        job.name,
        job.path,
        int(record.get("exit_code", 0)),
        str(record.get("outcome", "completed")),
        message=str(record.get("message", "")),
        input_sha256=input_sha,
        skipped=True,
        preview_sha256=record.get("preview_sha256"),
    )


def _unchanged(
    job: Job, record: dict[str, Any] | None, input_sha: str | None, settings_sha: str, out: Path
) -> bool:
    if record is None or input_sha is None or record.get("preview_sha256") is None:
        return False
    if record.get("input_sha256") != input_sha or record.get("settings_sha256") != settings_sha:
        return False
    if record.get("path") != job.path:
        return False
    return _file_hash(str(out / job.preview_name)) == record["preview_sha256"]


def _iter_local(jobs: list[Job], runner: Runner, workers: int) -> Iterator[ItemResult]:
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield runner(job)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    pool = ProcessPoolExecutor(max_workers=min(workers, len(jobs)))
    futures = {pool.submit(runner, job): job for job in jobs}
    try:
        for future in as_completed(futures):
            job = futures[future]
            try:
                yield future.result()
            except BrokenProcessPool:
                yield ItemResult(
                    job.index,
                    job.name,
                    job.path,
                    1,
                    "error",
                    "error: the worker process died (killed or out of memory); "
                    "rerun the batch to resume",
                )
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _iter_dask(
    jobs: list[Job], runner: Runner, address: str, timeout_s: float
) -> Iterator[ItemResult]:
    try:
        from distributed import Client, as_completed
    except ImportError:  # pragma: no cover - the extra is installed in dev
        raise PlannerError(
            "--dask needs the optional extra: pip install 'planner_cli[dask]'"
        ) from None
    try:
        client = Client(address, timeout=f"{timeout_s}s", set_as_default=False)
    except (OSError, TimeoutError) as exc:
        raise PlannerError(f"--dask {address}: cannot reach the scheduler ({exc})") from None
    try:
        futures = client.map(runner, jobs, pure=False, key=[f"planner-{j.index}" for j in jobs])
        by_key = {f.key: job for f, job in zip(futures, jobs, strict=True)}
        for future in as_completed(futures, loop=client.loop):
            job = by_key[future.key]
            try:
                yield future.result()
            except Exception as exc:
                yield ItemResult(
                    job.index,
                    job.name,
                    job.path,
                    1,
                    "error",
                    f"error: dask worker failed: {type(exc).__name__}: {_one_line(str(exc))}",
                )
    finally:
        client.close()


def run_batch(
    inputs: Sequence[str],
    out: str | Path,
    options: ItemOptions,
    settings: dict[str, Any],
    *,
    workers: int = 1,
    dask_address: str | None = None,
    dask_timeout_s: float = 10.0,
    runner: Runner = process_item,
    progress: Progress | None = None,
    force: bool = False,
) -> BatchReport:
    """Process every export of `inputs` into OUT under the lock; return the report.

    Previews and journal lines are written here, in the calling process, as results arrive: a
    preview first (atomically), then its `done` line (fsynced). A crash at any point leaves
    either a finished item (skipped by the rerun) or one the rerun redoes from scratch.
    """
    out_dir = Path(out)
    paths, warnings = discover(inputs, out_dir)
    names = assign_names(paths)
    settings_sha = settings_hash(options, settings)
    with batch_lock(out_dir):
        journal = Journal(out_dir)
        journal.compact()
        completed = journal.completed()
        results: dict[int, ItemResult] = {}
        todo: list[Job] = []
        progress = progress or Progress(len(paths))
        progress.total = len(paths)
        for index, (path, name) in enumerate(zip(paths, names, strict=True)):
            job = Job(index, name, path, options, settings)
            input_sha = _file_hash(path)
            record = completed.get(name)
            if not force and _unchanged(job, record, input_sha, settings_sha, out_dir):
                assert record is not None and input_sha is not None
                results[index] = _skip_result(job, record, input_sha)
                progress.update(results[index])
            else:
                todo.append(job)
        if todo:
            journal.append(
                {"event": "start", "items": len(todo), "pid": os.getpid(), "time": time.time()}
            )
        try:
            stream = (
                _iter_dask(todo, runner, dask_address, dask_timeout_s)
                if dask_address
                else _iter_local(todo, runner, workers)
            )
            for result in stream:
                _finish(result, out_dir, settings_sha, journal)
                results[result.index] = result
                progress.update(result)
        finally:
            progress.close()
            journal.close()
        report = BatchReport(str(out_dir), [results[i] for i in sorted(results)], warnings)
        atomic_write(out_dir / SUMMARY_NAME, dumps(report.summary()))
    return report


def _finish(result: ItemResult, out: Path, settings_sha: str, journal: Journal) -> None:
    """Put the preview in place, then record the item as done."""
    if result.preview_text is not None:
        atomic_write(out / (result.name + PREVIEW_SUFFIX), result.preview_text)
        result.preview_sha256 = hashlib.sha256(result.preview_text.encode("utf-8")).hexdigest()
        result.preview_text = None
    journal.append(
        {
            "event": "done",
            "name": result.name,
            "path": result.path,
            "input_sha256": result.input_sha256,
            "settings_sha256": settings_sha,
            "preview_sha256": result.preview_sha256,
            "outcome": result.outcome,
            "exit_code": result.exit_code,
            "message": result.message,
            "duration_s": round(result.duration_s, 3),
        }
    )
