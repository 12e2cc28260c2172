"""Scheduler tests: round-robin coverage and seat balance, Swiss pairing properties.

The Swiss properties run over simulated tournaments: standings come from a seeded random
finishing order at every table, so hypothesis explores field sizes, table sizes and seeds.
"""

from __future__ import annotations

import itertools
import math
import random
import re
from collections import Counter, defaultdict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ConfigError
from arena.tournament.formats import (
    Pairing,
    SwissRound,
    bye_count,
    REGISTRY,
    get_format,
    iter_round_robin,
    round_robin,
    round_robin_size,
    swiss_round,
    swiss_rounds_needed,
    swiss_size,
    table_count,
    table_sizes,
)

BOTS = [f"bot{i}" for i in range(7)]


def names(n: int) -> list[str]:
    return [f"b{i:02d}" for i in range(n)]


def by_deal(pairings: list[Pairing]) -> dict[str, list[Pairing]]:
    groups: dict[str, list[Pairing]] = defaultdict(list)
    for p in pairings:
        groups[p.deal].append(p)
    return groups


# --------------------------------------------------------------------------- round-robin


@pytest.mark.parametrize(
    ("n", "k", "games"), [(2, 2, 1), (5, 3, 2), (6, 4, 1), (7, 2, 3), (6, 6, 2), (7, 6, 1)]
)
def test_round_robin_plays_every_combination_under_every_rotation(n: int, k: int, games: int) -> None:
    pairings = round_robin(names(n), k, games=games, seed="rr")
    assert len(pairings) == math.comb(n, k) * k * games
    expected = {frozenset(c) for c in itertools.combinations(names(n), k)}
    for game in range(1, games + 1):
        rep = [p for p in pairings if p.round == game]
        assert Counter(frozenset(p.seats) for p in rep) == Counter({c: k for c in expected})
    for deal, group in by_deal(pairings).items():
        first = group[0]
        assert first.rotation == 0
        assert sorted(p.rotation for p in group) == list(range(k))
        for p in group:
            # Same deal, same table: each rotation is the drawn order turned by `rotation`.
            assert (p.round, p.table) == (first.round, first.table)
            assert p.seats == first.seats[p.rotation :] + first.seats[: p.rotation]


@pytest.mark.parametrize(("n", "k", "games"), [(5, 3, 2), (6, 2, 1), (4, 4, 3)])
def test_round_robin_deals_differ_between_combinations_and_repetitions(n: int, k: int, games: int) -> None:
    pairings = round_robin(names(n), k, games=games, seed="deals")
    groups = by_deal(pairings)
    assert len(groups) == math.comb(n, k) * games
    keys = {(g[0].round, g[0].table) for g in groups.values()}
    assert len(keys) == len(groups)
    for group in groups.values():
        assert len({frozenset(p.seats) for p in group}) == 1


@pytest.mark.parametrize(
    ("n", "k", "games"), [(4, 2, 1), (5, 3, 1), (6, 4, 2), (7, 5, 1), (6, 6, 1), (8, 3, 1)]
)
def test_round_robin_seats_every_bot_in_every_seat_equally(n: int, k: int, games: int) -> None:
    pairings = round_robin(names(n), k, games=games, seed="balance")
    per_seat = math.comb(n - 1, k - 1) * games
    for bot in names(n):
        seats = Counter(p.seats.index(bot) for p in pairings if bot in p.seats)
        assert seats == Counter({s: per_seat for s in range(k)})


def test_round_robin_ids_are_unique_and_name_round_table_rotation() -> None:
    pairings = round_robin(BOTS, 3, games=2, seed="ids")
    assert len({p.id for p in pairings}) == len(pairings) == 35 * 3 * 2
    for p in pairings:
        assert re.fullmatch(r"r\d+-t\d+-s\d+", p.id)
        assert p.id == f"r{p.round}-t{p.table}-s{p.rotation}"
        assert len(set(p.seats)) == 3


def test_round_robin_is_deterministic_and_seeded() -> None:
    a = round_robin(BOTS, 3, games=2, seed="one")
    assert a == round_robin(BOTS, 3, games=2, seed="one")
    # The listing order of the field does not matter, so editing a config cannot break a resume.
    assert a == round_robin(list(reversed(BOTS)), 3, games=2, seed="one")
    b = round_robin(BOTS, 3, games=2, seed="two")
    assert [frozenset(p.seats) for p in a] != [frozenset(p.seats) for p in b]
    assert {p.deal for p in a}.isdisjoint({p.deal for p in b})


def test_round_robin_redraws_seat_order_between_repetitions() -> None:
    # With one combination, rotations keep the cyclic order; repetitions redraw it, so neighbours change.
    pairings = round_robin(names(5), 5, games=6, seed="neighbours")
    cyclic = {p.seats for p in pairings if p.rotation == 0}
    canon = {min(o[r:] + o[:r] for r in range(5)) for o in cyclic}
    assert len(canon) > 1


def test_round_robin_with_all_bots_at_one_table() -> None:
    pairings = round_robin(names(4), 4, games=2, seed="full")
    assert len(pairings) == 8
    assert {frozenset(p.seats) for p in pairings} == {frozenset(names(4))}
    assert {p.table for p in pairings} == {1}
    assert len({p.deal for p in pairings}) == 2


def test_round_robin_without_rotations_rotates_by_repetition() -> None:
    pairings = round_robin(names(5), 3, games=3, rotations=False, seed="norot")
    assert len(pairings) == math.comb(5, 3) * 3
    assert all(p.rotation == (p.round - 1) % 3 for p in pairings)
    assert len({p.deal for p in pairings}) == len(pairings)
    for bot in names(5):
        seats = Counter(p.seats.index(bot) for p in pairings if bot in p.seats)
        assert seats == Counter({0: 6, 1: 6, 2: 6})


@pytest.mark.parametrize(
    ("bots", "seats", "games", "message"),
    [
        (BOTS, 1, 1, "between 2 and 6"),
        (BOTS, 7, 1, "between 2 and 6"),
        (BOTS[:3], 4, 1, "cannot exceed the number of bots"),
        (["a", "b", "a", "c"], 2, 1, "unique; duplicated: a"),
        (BOTS, 3, 0, "games must be at least 1"),
    ],
)
def test_round_robin_rejects_bad_arguments(bots: list[str], seats: int, games: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        round_robin(bots, seats, games=games, seed="bad")


@given(n=st.integers(2, 9), k=st.integers(2, 6), games=st.integers(1, 3), rotations=st.booleans())
def test_round_robin_size_counts_the_round_robin(n: int, k: int, games: int, rotations: bool) -> None:
    if k > n:
        with pytest.raises(ValueError):
            round_robin_size(n, k, games=games)
        return
    size = round_robin_size(n, k, games=games, rotations=rotations)
    assert size == len(round_robin(names(n), k, games=games, rotations=rotations, seed="size"))


@given(n=st.integers(2, 8), k=st.integers(2, 6), games=st.integers(1, 3), rotations=st.booleans())
def test_iter_round_robin_makes_the_same_pairings_table_by_table(n: int, k: int, games: int, rotations: bool) -> None:
    """The tournament's lazy plan: same pairings as the list, but each table's in a row (bots stay warm)."""
    if k > n:
        return
    listed = round_robin(names(n), k, games=games, rotations=rotations, seed="lazy")
    streamed = iter_round_robin(names(n), k, games=games, rotations=rotations, seed="lazy")
    assert not isinstance(streamed, list)
    streamed = list(streamed)
    assert sorted(streamed, key=lambda p: p.id) == sorted(listed, key=lambda p: p.id)
    tables = [p.table for p in streamed]
    assert tables == sorted(tables, key=tables.index)  # each table's pairings are contiguous


def test_swiss_size_and_unknown_formats() -> None:
    assert swiss_size(10, 3) == 3 * 4  # 3 tables, swiss_rounds_needed(10, 3) == 4
    assert swiss_size(10, 3, rounds=5, rotations=True) == 9 * 5
    assert swiss_size(10, 4, rounds=2, min_seats=2) == 3 * 2
    assert swiss_size(7, 3, rounds=2, min_seats=2, fill=False) == 2 * 2  # the first rule: 3 + 3 and a bye
    assert list(REGISTRY) == ["gauntlet", "round-robin", "swiss"]
    with pytest.raises(ConfigError, match="unknown format 'knockout' \\(formats: gauntlet, round-robin, swiss\\)"):
        get_format("knockout")


# --------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("n", "k", "min_seats", "sizes", "byes"),
    [
        (12, 4, None, (4, 4, 4), 0),
        (14, 4, None, (4, 4, 4), 2),
        (14, 4, 2, (4, 4, 4, 2), 0),
        (13, 4, 2, (4, 4, 3, 2), 0),  # everyone seated: two short tables rather than a bye
        (10, 4, 3, (4, 3, 3), 0),  # not 4, 4 and two byes
        (7, 3, 2, (3, 2, 2), 0),
        (5, 4, 3, (4,), 1),  # 3 + 2 would need a table under min_seats
        (11, 6, 4, (6, 5), 0),
        (9, 6, 5, (6,), 3),
        (5, 6, 3, (5,), 0),
        (2, 2, None, (2,), 0),
    ],
)
def test_table_sizes(n: int, k: int, min_seats: int | None, sizes: tuple[int, ...], byes: int) -> None:
    assert table_sizes(n, k, min_seats) == sizes
    assert table_count(n, k, min_seats) == len(sizes)
    assert bye_count(n, k, min_seats) == byes


@pytest.mark.parametrize(
    ("n", "k", "rounds"), [(2, 2, 3), (8, 2, 4), (9, 2, 5), (16, 4, 3), (17, 4, 4), (100, 2, 8), (50, 6, 4)]
)
def test_swiss_rounds_needed(n: int, k: int, rounds: int) -> None:
    assert swiss_rounds_needed(n, k) == rounds


# --------------------------------------------------------------------------- swiss


def play_swiss(
    n: int, k: int, rounds: int, seed: str, *, min_seats: int | None = None, rotations: bool = False
) -> list[tuple[dict[str, float], list[Pairing], SwissRound]]:
    """Simulate a Swiss: random finishing orders, points = share of opponents beaten."""
    bots = names(n)
    rng = random.Random(f"sim:{seed}")
    points = dict.fromkeys(bots, 0.0)
    history: list[Pairing] = []
    played = []
    for r in range(1, rounds + 1):
        result = swiss_round(
            bots, k, r, dict(points), list(history), seed=seed, min_seats=min_seats, rotations=rotations
        )
        played.append((dict(points), list(history), result))
        for p in result.pairings:
            if p.rotation == 0:
                finish = list(p.seats)
                rng.shuffle(finish)
                for place, bot in enumerate(finish):
                    points[bot] += (len(finish) - 1 - place) / (len(finish) - 1)
        history.extend(result.pairings)
    return played


def partitions(players: list[str], k: int):
    """Every split of ``players`` into tables of ``k`` (brute force for small fields)."""
    if not players:
        yield []
        return
    head, rest = players[0], players[1:]
    for mates in itertools.combinations(rest, k - 1):
        left = [b for b in rest if b not in mates]
        for tail in partitions(left, k):
            yield [frozenset((head, *mates)), *tail]


fields = st.integers(2, 20).flatmap(lambda n: st.tuples(st.just(n), st.integers(2, min(6, n))))


@pytest.mark.slow
@settings(max_examples=60)
@given(field=fields, rounds=st.integers(1, 6), seed=st.text(min_size=1, max_size=6))
def test_swiss_every_bot_plays_once_or_has_a_bye(field: tuple[int, int], rounds: int, seed: str) -> None:
    n, k = field
    ids: set[str] = set()
    for _, _, result in play_swiss(n, k, rounds, seed):
        tables = [p.seats for p in result.pairings]
        seated = [b for t in tables for b in t]
        assert all(len(t) == k for t in tables)
        assert len(tables) == n // k
        assert len(result.byes) == n % k
        assert Counter(seated + list(result.byes)) == Counter(names(n))
        assert [p.table for p in result.pairings] == list(range(1, n // k + 1))
        assert all(p.rotation == 0 and p.round == result.round for p in result.pairings)
        assert len({p.deal for p in result.pairings}) == len(tables)
        new_ids = {p.id for p in result.pairings}
        assert len(new_ids) == len(tables) and ids.isdisjoint(new_ids)
        ids |= new_ids


@pytest.mark.slow
@settings(max_examples=60)
@given(field=fields, rounds=st.integers(1, 12), seed=st.text(min_size=1, max_size=6))
def test_swiss_byes_are_spread_and_go_to_the_lowest_standing(
    field: tuple[int, int], rounds: int, seed: str
) -> None:
    n, k = field
    byes = Counter(dict.fromkeys(names(n), 0))
    for standings, _, result in play_swiss(n, k, rounds, seed):
        chosen = set(result.byes)
        for b in chosen:
            for c in set(names(n)) - chosen:
                # Fewest byes first; at the same count, the lower standing sits out.
                assert byes[b] <= byes[c]
                if byes[b] == byes[c]:
                    assert standings[b] <= standings[c]
        byes.update(chosen)
        # No bot has a second bye before every bot had one (and so on for later byes).
        assert max(byes.values()) - min(byes.values()) <= 1


@pytest.mark.slow
@settings(max_examples=40)
@given(
    field=st.integers(4, 10).flatmap(lambda n: st.tuples(st.just(n), st.integers(2, min(5, n // 2)))),
    rounds=st.integers(2, 8),
    seed=st.text(min_size=1, max_size=6),
)
def test_swiss_avoids_a_repeated_table_whenever_one_can_be_avoided(
    field: tuple[int, int], rounds: int, seed: str
) -> None:
    assert_no_avoidable_repeat(*field, rounds, seed)


@pytest.mark.parametrize(("n", "k", "seed", "rounds"), [(7, 2, "s2", 4), (8, 2, "s7", 5), (9, 2, "s0", 7)])
def test_swiss_searches_small_fields_whole_when_swaps_stall(n: int, k: int, seed: str, rounds: int) -> None:
    # Found by simulation: here the best-improvement swaps alone leave a repeated table.
    assert_no_avoidable_repeat(n, k, rounds, seed)


def assert_no_avoidable_repeat(n: int, k: int, rounds: int, seed: str) -> None:
    for _, history, result in play_swiss(n, k, rounds, seed):
        met = {frozenset(p.seats) for p in history}
        tables = [frozenset(p.seats) for p in result.pairings]
        if not met.isdisjoint(tables):
            players = sorted(b for t in tables for b in t)
            # Brute force: with these players, every split must repeat some earlier table.
            assert all(not met.isdisjoint(split) for split in partitions(players, k))


def test_swiss_splits_a_repeated_top_group_across_tables() -> None:
    top, bottom = ["a", "b", "c", "d"], ["e", "f", "g", "h"]
    first = swiss_round(top + bottom, 4, 1, {}, [], seed="split")
    # Rig round 2 so the natural top-down filling would replay round 1's tables.
    history = [
        Pairing("r1-t1-s0", 1, 1, tuple(top), "x:r1-t1", 0),
        Pairing("r1-t2-s0", 1, 2, tuple(bottom), "x:r1-t2", 0),
    ]
    standings = dict.fromkeys(top, 3.0) | dict.fromkeys(bottom, 0.0)
    second = swiss_round(top + bottom, 4, 2, standings, history, seed="split")
    assert len(first.pairings) == len(second.pairings) == 2
    for p in second.pairings:
        # Two from each old table: four repeated pairs in all, the fewest possible.
        assert len(set(p.seats) & set(top)) == 2


def test_swiss_keeps_score_groups_together_when_nothing_repeats() -> None:
    bots = names(9)
    standings = {b: float(9 - i) for i, b in enumerate(bots)}
    result = swiss_round(bots, 3, 2, standings, [], seed="groups")
    assert [frozenset(p.seats) for p in result.pairings] == [
        frozenset(bots[0:3]),
        frozenset(bots[3:6]),
        frozenset(bots[6:9]),
    ]


@pytest.mark.slow
@settings(max_examples=25)
@given(field=fields, seed=st.text(min_size=1, max_size=6))
def test_swiss_spreads_the_first_seat(field: tuple[int, int], seed: str) -> None:
    n, k = field
    played = play_swiss(n, k, 15, seed)
    _, history, last = played[-1]
    starts = Counter({b: 0 for b in names(n)})
    starts.update(p.seats[0] for p in [*history, *last.pairings])
    # Pairings follow the scores, so a bot can meet tablemates who started as rarely as it did
    # several times in a row; 3 is the worst spread seen over thousands of simulated events.
    assert max(starts.values()) - min(starts.values()) <= 3


def test_swiss_gives_the_first_seat_to_who_had_it_least() -> None:
    history = [
        Pairing("r1-t1-s0", 1, 1, ("a", "b", "c"), "x:r1", 0),
        Pairing("r2-t1-s0", 2, 1, ("b", "a", "c"), "x:r2", 0),
    ]
    third = swiss_round(["a", "b", "c"], 3, 3, {}, history, seed="starter")
    # c never started, so c starts.
    assert third.pairings[0].seats[0] == "c"
    history.append(Pairing("r3-t1-s0", 3, 1, ("c", "a", "b"), "x:r3", 0))
    fourth = swiss_round(["a", "b", "c"], 3, 4, {}, history, seed="starter")
    # Everyone started once, so a starts (its start is the oldest, round 1); then c takes
    # seat 1 (never sat there) and b seat 2 (once) rather than c seat 2 (twice).
    assert fourth.pairings[0].seats == ("a", "c", "b")


@settings(max_examples=30)
@given(field=fields, rounds=st.integers(1, 4), seed=st.text(min_size=1, max_size=6))
def test_swiss_is_deterministic(field: tuple[int, int], rounds: int, seed: str) -> None:
    n, k = field
    for standings, history, result in play_swiss(n, k, rounds, seed):
        again = swiss_round(names(n), k, result.round, standings, history, seed=seed)
        assert again == result
        assert swiss_round(list(reversed(names(n))), k, result.round, standings, history, seed=seed) == result


def test_swiss_seed_breaks_ties() -> None:
    first = [swiss_round(names(12), 3, 1, {}, [], seed=s).pairings for s in ("one", "two")]
    assert [frozenset(p.seats) for p in first[0]] != [frozenset(p.seats) for p in first[1]]


def test_swiss_rotations_share_the_deal() -> None:
    result = swiss_round(names(10), 3, 1, {}, [], seed="rot", rotations=True)
    assert len(result.pairings) == 9 and len(result.byes) == 1
    for deal, group in by_deal(list(result.pairings)).items():
        assert [p.rotation for p in group] == [0, 1, 2]
        for p in group:
            assert p.seats == group[0].seats[p.rotation :] + group[0].seats[: p.rotation]
    assert len({p.id for p in result.pairings}) == 9


@settings(max_examples=30)
@given(n=st.integers(3, 20), k=st.integers(3, 6), min_seats=st.integers(2, 6), seed=st.text(max_size=4))
def test_swiss_min_seats_seats_as_many_bots_as_it_can(n: int, k: int, min_seats: int, seed: str) -> None:
    """Tables of min_seats..k seats, largest first; a bye only where no such tables seat one more
    bot; then as many full tables as possible (short tables hold the empty seats, fewest first)."""
    if min_seats > k or n < min_seats:
        with pytest.raises(ValueError):
            swiss_round(names(n), k, 1, {}, [], seed=seed, min_seats=min_seats)
        return

    def fits(bots: int) -> bool:  # some number of tables of min_seats..k seats holds exactly these bots
        return any(t * min_seats <= bots <= t * k for t in range(1, bots + 1))

    for _, _, result in play_swiss(n, k, 3, seed, min_seats=min_seats):
        sizes = [len(p.seats) for p in result.pairings]
        assert all(min_seats <= size <= k for size in sizes) and sizes == sorted(sizes, reverse=True)
        assert sum(sizes) + len(result.byes) == n
        assert not any(fits(n - b) for b in range(len(result.byes)))
        if min_seats < k:
            assert sizes.count(k) == len(sizes) - -(-(len(sizes) * k - sum(sizes)) // (k - min_seats))


def test_swiss_byes_are_inferred_from_history() -> None:
    # Round 1: e sat out.  In round 2 the bye must go to someone else, lowest standing first.
    history = [Pairing("r1-t1-s0", 1, 1, ("a", "b", "c", "d"), "x:r1", 0)]
    standings = {"a": 3.0, "b": 2.0, "c": 1.0, "d": 0.5, "e": 0.0}
    result = swiss_round(list("abcde"), 4, 2, standings, history, seed="bye")
    assert result.byes == ("d",)


@pytest.mark.parametrize(
    ("bots", "seats", "round", "min_seats", "message"),
    [
        (BOTS, 1, 1, None, "between 2 and 6"),
        (BOTS, 7, 1, None, "between 2 and 6"),
        (BOTS[:3], 4, 1, None, "cannot fill a table"),
        (BOTS, 4, 1, 5, "min_seats must be between"),
        (["a", "a", "b"], 2, 1, None, "duplicated: a"),
        (BOTS, 2, 0, None, "round must be at least 1"),
    ],
)
def test_swiss_rejects_bad_arguments(
    bots: list[str], seats: int, round: int, min_seats: int | None, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        swiss_round(bots, seats, round, {}, [], seed="bad", min_seats=min_seats)


@pytest.mark.parametrize("sizes", [(3, 2, 2), (4, 3, 3), (4, 4, 3, 2), (4, 4, 2), (3, 3)])
def test_the_exact_search_handles_any_number_of_short_tables(sizes: tuple[int, ...]) -> None:
    """min_seats can now make several short tables a round; the search for a grouping without
    a repeated table assumed one at most, and found nothing (a repeat was kept) with two."""
    from arena.tournament.formats.swiss import _exact_search

    players = names(sum(sizes))
    found = _exact_search(players, sizes, lambda table, index: (0, 0), bound=(1, 0))
    assert found is not None and [len(t) for t in found] == list(sizes)
    assert sorted(b for t in found for b in t) == sorted(players)
    # And a cost that wants given bots together at given tables is met exactly.
    want = {}
    at = 0
    for index, size in enumerate(sizes):
        for bot in players[at:at + size]:
            want[bot] = index
        at += size
    cost = lambda table, index: (sum(want[b] != index for b in table), 0)  # noqa: E731
    best = _exact_search(players, sizes, cost, bound=(len(players) + 1, 0))
    assert best is not None and all(want[b] == i for i, t in enumerate(best) for b in t)
