"""``arena play``: ad-hoc matches between bot programs, summarised for the terminal or as JSON."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from arena.games import Game, GameConfig
from arena.referee import BotSpec, MatchPlan, MatchReport, Referee, RefereeConfig, bot_spec
from arena.referee.logs import shown_line

STDERR_LINES = 5  # of a faulting bot's stderr, shown under its fault


@dataclass(slots=True)
class PlaySummary:
    """The matches played, per bot: points, game wins, mean place and faults by kind."""

    game: str
    bots: list[str]
    matches: list[MatchReport] = field(default_factory=list)

    def per_bot(self) -> list[dict[str, Any]]:
        rows = []
        for seat, name in enumerate(self.bots):
            places = [g.record["result"]["places"][seat] for m in self.matches for g in m.games]
            faults = Counter(f.kind for m in self.matches for g in m.games for f in g.faults if f.seat == seat)
            rows.append({
                "seat": seat,
                "bot": name,
                "match_wins": sum(m.winner == seat for m in self.matches),
                "game_wins": sum(g.record["result"]["winner"] == seat for m in self.matches for g in m.games),
                "games": len(places),
                "mean_place": round(sum(places) / len(places), 3) if places else None,
                "faults": dict(faults),
                "starts": sum(m.starts[seat] for m in self.matches),
            })
        return rows

    def to_json(self) -> dict[str, Any]:
        games = [
            {"match": i, "game_id": g.game_id, "places": g.record["result"]["places"],
             "winner": g.record["result"]["winner"], "faults": [f.to_json() for f in g.faults]}
            for i, m in enumerate(self.matches) for g in m.games
        ]
        return {"game": self.game, "bots": self.per_bot(), "games": games}

    def lines(self) -> list[str]:
        """The human report: each game's places and faults (with the faulting bot's last
        stderr lines), then a row per bot."""
        out = []
        for i, match in enumerate(self.matches):
            for g in match.games:
                places = g.record["result"]["places"]
                order = sorted(range(len(places)), key=places.__getitem__)
                ranking = ", ".join(f"{places[s]}. {self.bots[s]}" for s in order)
                out.append(f"match {i + 1} game {g.index + 1} ({g.game_id}): {ranking}")  # the id the warnings name
                for f in g.faults:
                    out.append(f"    fault: {self.bots[f.seat]} (seat {f.seat}) {f.kind}: {f.message}")
                    # What the bot said last, often the traceback's last line: the quickest hint.
                    tail = (g.logs.get(f.seat) or "").rstrip().splitlines()[-STDERR_LINES:]
                    out.extend(f"      | {shown_line(line)}" for line in tail)
            out.append(f"match {i + 1} points: " + ", ".join(f"{self.bots[s]} {p}" for s, p in enumerate(match.scores)))
        out.append("")
        width = max(len("bot"), *(len(name) for name in self.bots)) + 2
        out.append(f"{'seat':<5}{'bot':<{width}}{'match wins':>10}{'games':>7}{'game wins':>11}{'mean place':>12}"
                   "  faults")
        for row in self.per_bot():
            faults = " ".join(f"{k}:{v}" for k, v in sorted(row["faults"].items())) or "-"  # as `arena ratings`
            mean = "-" if row["mean_place"] is None else f"{row['mean_place']:.2f}"
            out.append(f"{row['seat']:<5}{row['bot']:<{width}}{row['match_wins']:>10}{row['games']:>7}"
                       f"{row['game_wins']:>11}{mean:>12}  {faults}")
        return out


def seat_labels(names: list[str], targets: list[str]) -> list[str]:
    """What to call each seat's bot in the output: its name (a script's file stem); where two
    different bots share it (``a/bot.py``, ``b/bot.py``), the path as given; and where one bot
    sits twice, ``#`` and its seat number."""
    groups: dict[str, set[str]] = {}
    for name, target in zip(names, targets):
        groups.setdefault(name, set()).add(target)
    labels = [target if len(groups[name]) > 1 else name for name, target in zip(names, targets)]
    counts = Counter(labels)
    return [f"{label}#{seat}" if counts[label] > 1 else label for seat, label in enumerate(labels)]


def match_plans(seed: str, matches: int, config: GameConfig) -> list[MatchPlan]:
    """The matches of ``arena play`` (and of in-process play, which must deal the same): the
    first starter moves one seat left each match, so no seat starts every match (in a game of
    one-game matches, such as Reactor's, seat 0 would otherwise always move first)."""
    first = config.starter or 0
    return [MatchPlan(f"{seed}:{m}", f"m{m}", starter=(first + m) % config.players) for m in range(matches)]


def play_matches(game: Game, config: GameConfig, targets: list[str], *, matches: int, seed: str,
                 referee: RefereeConfig, specs: list[BotSpec] | None = None) -> PlaySummary:
    """Play ``matches`` matches at one table in one session: each bot is started once (again only
    after a fault), and plays several matches at once if it offers to (``hello.concurrent``).
    ``specs``: the bots already resolved (a registered version), else from ``targets``."""
    specs = specs if specs is not None else [bot_spec(t) for t in targets]
    labels = seat_labels([s.name for s in specs], targets)
    specs = [type(s)(label, s.command, s.expose, s.env) for s, label in zip(specs, labels)]
    summary = PlaySummary(game.name, [s.name for s in specs])
    plans = match_plans(seed, matches, config)
    with Referee(referee) as ref, ref.session() as session:
        summary.matches.extend(session.play_matches(game, config, specs, plans))
    return summary
