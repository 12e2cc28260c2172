"""The whole harness: full-tournament games a second with 1 and 2 workers, and the coordinator's
peak memory over a short and a long tournament."""

from __future__ import annotations

import resource
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from arena.bench.cpu import in_child
from arena.bench.roundtrip import RANDOM_BOT



def _tournament_file(folder: Path, name: str, bots: int, seats: int, games: int, sandbox_mode: str) -> Path:
    path = folder / f"{name}.toml"
    entries = "".join(f'[[bots]]\nname = "r{i}"\npath = "{RANDOM_BOT}"\n' for i in range(bots))
    path.write_text(f'name = "{name}"\ngame = "reactor"\nseats = {seats}\ngames = {games}\nseed = 1\n'
                    f'[sandbox]\nmode = "{sandbox_mode}"\n{entries}')
    return path


def _run_tournament(file: Path, db: Path, workers: int, count_starts: bool) -> tuple[float, int, int, int]:
    """Run a tournament as `arena run` does (in a fresh child: see run_tournament): wall time, games, peak RSS, bot starts."""
    from arena.storage import open_store
    from arena.tournament import Tournament
    from arena.tournament.file import load_tournament

    spec = load_tournament(file)
    with open_store(db) as store:
        tournament = Tournament(spec, store)
        t0 = time.perf_counter()
        outcome = tournament.run(workers=workers)
        seconds = time.perf_counter() - t0
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # before reading records back
        starts = 0
        if count_starts:
            starts = sum(sum(store.game_record(g.id).get("starts", []))
                         for g in store.games(tournament=spec.name, limit=1_000_000))
    return seconds, outcome.played, peak_kb, starts


def run_tournament(file: Path, db: Path, workers: int, count_starts: bool = False) -> tuple[float, int, int, int]:
    """Run a tournament in a fresh child process: (seconds, games, peak RSS in KB, bot starts)."""
    return in_child(_run_tournament, file, db, workers, count_starts)


@dataclass(frozen=True, slots=True)
class Throughput:
    workers: int
    games_per_s: float
    games: int
    bot_starts: int


def harness_throughput(games_per_rotation: int = 10, repeats: int = 3,
                       sandbox_mode: str = "auto") -> tuple[list[Throughput], float]:
    """Games/s of a real tournament (4 random bots at a 4-seat table, every rotation) with 1 and
    2 workers, and the median of the 2-worker/1-worker ratios of back-to-back pairs of runs (on
    a shared machine, a pair sees the same background load; separate medians would not)."""
    rates: dict[int, list[float]] = {1: [], 2: []}
    starts = {1: 0, 2: 0}
    games = {1: 0, 2: 0}
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        for r in range(repeats):
            for workers in (1, 2):
                file = _tournament_file(folder, f"w{workers}r{r}", 4, 4, games_per_rotation, sandbox_mode)
                seconds, played, _, starts[workers] = run_tournament(file, folder / f"w{workers}r{r}.db", workers, True)
                rates[workers].append(played / seconds)
                games[workers] = played
    out = [Throughput(w, statistics.median(rates[w]), games[w], starts[w]) for w in (1, 2)]
    return out, statistics.median(two / one for one, two in zip(rates[1], rates[2]))


@dataclass(frozen=True, slots=True)
class MemoryUse:
    games: int
    peak_rss_mb: float


def coordinator_memory(sizes: tuple[int, ...] = (100, 5000), sandbox_mode: str = "auto", workers: int = 2) -> list[MemoryUse]:
    """Peak RSS of the coordinator process over tournaments of different lengths (2-seat tables)."""
    out = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as tmp:
        folder = Path(tmp)
        for size in sizes:
            # 2 bots at 2 seats: one table, 2 rotations per repetition.
            file = _tournament_file(folder, f"mem{size}", 2, 2, max(size // 2, 1), sandbox_mode)
            _, played, rss_kb, _ = run_tournament(file, folder / f"mem{size}.db", workers)
            out.append(MemoryUse(played, rss_kb / 1024))
    return out
