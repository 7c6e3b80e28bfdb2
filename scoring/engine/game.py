"""The strafpunten game: a session replayed round by round, event by event (RULES.md §1-11, 13a).

``Game`` holds what carries across rounds (totals, who is out, streaks, the dealer);
``RoundPlay`` holds one deal: the stake, who is active, who must answer the latest raise. Every
rule that decides whether an event may happen is a ``check_*`` method of ``RoundPlay`` returning
``None`` or a ``Refusal``; replaying an event and telling the tablet which buttons to enable call
the same method, so the two can never disagree.

In team toepen (§13a) a *unit* is a side; otherwise a unit is a player. Totals, armoede, the
knock cap, blind eligibility and going out all look at the unit's total.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .bounds import MAX_EVENTS, MAX_ROUNDS, TOTAL_LIMIT
from .errors import Refusal
from .result import Result, RoundResult
from .sessionfile import check_event, check_round


class Game:
    """What lasts across rounds: seats, totals, who is out, streaks and the dealer."""

    def __init__(
        self,
        players: list[str],
        rules: dict[str, Any],
        *,
        start: dict[str, int],
        teams: dict[str, list[str]] | None,
        dealer: str | None,
    ) -> None:
        self.rules = rules
        self.max_points: int = rules["max_points"]
        self.seats: list[str] = list(players)
        self.known: set[str] = set(players)
        self.teams = teams
        self.side_of: dict[str, str] | None = (
            {p: side for side, members in teams.items() for p in members} if teams else None
        )
        units = list(teams) if teams else self.seats
        self.totals: dict[str, int] = {u: start.get(u, 0) for u in units}
        self.out: set[str] = set()  # units
        self.eliminated: list[str] = []
        self.out_round: dict[str, int] = {}  # unit -> round it went out in
        self.fold_streak: dict[str, int] = {}
        self.pussy: dict[str, int] = {}
        self.win_streak: dict[str, int] = {}
        self.first_dealer = dealer or self.seats[0]
        self.last_dealer: str | None = None
        self.last_winner: str | None = None
        self.finished = False
        self.winner: str | None = None
        self.loser: str | list[str] | None = None
        self.sudden_death: list[str] | None = None  # units tied for the win, playing it out
        self.rounds: list[RoundResult] = []

    # --- units -----------------------------------------------------------------------------
    def unit(self, player: str) -> str:
        return self.side_of[player] if self.side_of is not None else player

    def total_of(self, player: str) -> int:
        return self.totals[self.unit(player)]

    def is_out(self, player: str) -> bool:
        return self.unit(player) in self.out

    def alive_units(self) -> list[str]:
        return [u for u in self.totals if u not in self.out]

    # --- rounds ----------------------------------------------------------------------------
    def new_round(self, absent: dict[str, str], join: list[str]) -> RoundPlay:
        number = len(self.rounds) + 1
        if self.finished:
            raise Refusal("round_after_finish").at(number)
        if number > MAX_ROUNDS:
            raise Refusal("too_many_rounds", limit=MAX_ROUNDS).at(number)
        for name in join:
            if self.side_of is not None:
                raise Refusal("join_sides_fixed", player=name).at(number)
            if name in self.totals or name.casefold() in {s.casefold() for s in self.seats}:
                raise Refusal("join_taken", player=name).at(number)
            self.seats.append(name)
            self.known.add(name)
            self.totals[name] = 0
        for name in absent:
            if name not in self.known:
                raise Refusal("unknown_player", player=name).at(number)
            if self.is_out(name):
                raise Refusal("absent_out", player=name).at(number)
        if self.sudden_death is not None:
            units = set(self.sudden_death)
            seated = [p for p in self.seats if self.unit(p) in units]
        elif not self.out:
            seated = self.seats
        else:
            seated = [p for p in self.seats if not self.is_out(p)]
        participants = [p for p in seated if absent.get(p) != "drinks"]
        if len(participants) > 8:
            raise Refusal("too_many_players", count=len(participants)).at(number)
        if len(participants) < 2:
            raise Refusal("too_few_players", count=len(participants)).at(number)
        return RoundPlay(self, number, participants, absent, join)

    def dealer_for(self, participants: list[str]) -> str:
        """Who deals: the last-trick winner of the previous round, or the next seat clockwise."""
        if self.last_dealer is None:
            wanted = self.first_dealer
        elif self.rules["next_dealer"] == "winner" and self.last_winner is not None:
            wanted = self.last_winner
        else:
            wanted = self._next_seat(self.last_dealer)
        return self._first_present_from(wanted, participants)

    def dealer_if_won(self, play: RoundPlay, winner: str) -> str:
        """Who deals the round after ``play`` if ``winner`` ends it, as ``dealer_for`` would
        choose among the players not out now (one going out in this round is not foreseen)."""
        by_winner = self.rules["next_dealer"] == "winner"
        wanted = winner if by_winner else self._next_seat(play.dealer)
        return self._first_present_from(wanted, [p for p in self.seats if not self.is_out(p)])

    def _next_seat(self, player: str) -> str:
        index = self.seats.index(player)
        return self.seats[(index + 1) % len(self.seats)]

    def _first_present_from(self, player: str, participants: list[str]) -> str:
        present = set(participants)
        index = self.seats.index(player)
        for step in range(len(self.seats)):
            candidate = self.seats[(index + step) % len(self.seats)]
            if candidate in present:
                return candidate
        return participants[0]

    def finish_round(self, play: RoundPlay) -> RoundResult:
        points, side_points = play.score()
        changes = side_points if side_points is not None else points
        for unit, value in changes.items():
            total = self.totals[unit] + value
            if not -TOTAL_LIMIT <= total <= TOTAL_LIMIT:
                raise Refusal("total_limit", player=unit, total=total, limit=TOTAL_LIMIT).at(
                    play.number
                )
        for unit, value in changes.items():
            self.totals[unit] += value
        self._count_streaks(play)
        self.last_dealer = play.dealer
        self.last_winner = play.winner
        eliminated = self._eliminate(play)
        result = RoundResult(
            number=play.number,
            stake=play.stake,
            winner=play.winner,
            points=points,
            participants=play.participants,
            dealer=play.dealer,
            ended_by=play.ended_by or "win",
            jack=play.jack,
            knocks=play.knocks,
            folds=play.folds,
            armoede=play.armoede,
            absent=play.absent,
            joined=play.joined,
            blind_knocker=play.blind_knocker,
            penalties=play.penalties,
            pussy_points=play.pussy_earned,
            disqualified=play.disqualified,
            eliminated=eliminated,
            totals=dict(self.totals),
            side_points=side_points,
        )
        self.rounds.append(result)
        return result

    def _count_streaks(self, play: RoundPlay) -> None:
        if not self.rules["five_crosses"]:
            return
        winner = play.winner
        for player in play.participants:
            if player != winner:
                self.win_streak[player] = 0
        if winner is None:
            return
        self.win_streak[winner] = self.win_streak.get(winner, 0) + 1

    def _eliminate(self, play: RoundPlay) -> list[str]:
        """Who goes out after this round, and whether the session is over (§10)."""
        number = play.number
        if self.sudden_death is not None:
            return self._settle_sudden_death(play)
        alive = self.alive_units()
        going = [u for u in alive if self.totals[u] >= self.max_points]
        for player in play.disqualified:
            unit = self.unit(player)
            if unit not in going:
                going.append(unit)
        going += self._five_crosses(play, [u for u in alive if u not in going])
        going = self._out_order(going)
        if not going:
            return []
        left = [u for u in alive if u not in going]
        if self.rules["end"] == "first_out":
            self._go_out(going, number)
            highest = max(self.totals[u] for u in going)
            losers = [u for u in going if self.totals[u] == highest]
            self.loser = losers[0] if len(losers) == 1 else losers
            self.finished = True
            return going
        if len(left) >= 1:
            self._go_out(going, number)
            if len(left) == 1:
                self.winner = left[0]
                self.finished = True
            return going
        # Everybody still in went out together: the lowest total before the round wins.
        before = {u: self.totals[u] - play.unit_points.get(u, 0) for u in going}
        lowest = min(before[u] for u in going)
        tied = [u for u in going if before[u] == lowest]
        out = [u for u in going if u not in tied]
        self._go_out(out, number)
        if len(tied) == 1:
            self.winner = tied[0]
            self.finished = True
        else:
            self.sudden_death = tied
        return out

    def _settle_sudden_death(self, play: RoundPlay) -> list[str]:
        if play.winner is None:  # nobody won (all lose): they play another round
            return []
        winner = self.unit(play.winner)
        out = self._out_order([u for u in self.sudden_death or [] if u != winner])
        self._go_out(out, play.number)
        self.sudden_death = None
        self.winner = winner
        self.finished = True
        return out

    def _five_crosses(self, play: RoundPlay, candidates: list[str]) -> list[str]:
        """Five rounds won in a row put out the lowest other player still in (§11)."""
        winner = play.winner
        if not self.rules["five_crosses"] or winner is None:
            return []
        if self.win_streak.get(winner, 0) < 5:
            return []
        self.win_streak[winner] = 0
        others = [u for u in candidates if u != winner]
        if not others:
            return []
        lowest = min(self.totals[u] for u in others)
        start = self.seats.index(winner)
        for step in range(1, len(self.seats)):
            seat = self.seats[(start + step) % len(self.seats)]
            if seat in others and self.totals[seat] == lowest:
                return [seat]
        return []

    def _out_order(self, units: list[str]) -> list[str]:
        """Out in the same round: higher total first, equal totals in seat order (§14)."""
        seat = {u: index for index, u in enumerate(self.totals)}
        return sorted(units, key=lambda u: (-self.totals[u], seat[u]))

    def _go_out(self, units: list[str], number: int) -> None:
        for unit in units:
            self.out.add(unit)
            self.eliminated.append(unit)
            self.out_round[unit] = number

    # --- the final order -------------------------------------------------------------------
    def places(self) -> dict[str, int]:
        """Final (or current) places, 1 = best; equal standing shares a place (§10)."""
        alive = [u for u in self.totals if u not in self.out]
        if self.winner is not None:
            groups: list[list[str]] = [[self.winner]]
            rest = [u for u in alive if u != self.winner]
        else:
            groups = []
            rest = alive
        # Still in: by total, lowest first.
        for total in sorted({self.totals[u] for u in rest}):
            groups.append([u for u in rest if self.totals[u] == total])
        # Out: latest round first; within a round, lower total first.
        gone = [u for u in self.eliminated if u != self.winner]
        for number in sorted({self.out_round[u] for u in gone}, reverse=True):
            same = [u for u in gone if self.out_round[u] == number]
            for total in sorted({self.totals[u] for u in same}):
                groups.append([u for u in same if self.totals[u] == total])
        places: dict[str, int] = {}
        place = 1
        for group in groups:
            for unit in group:
                places[unit] = place
            place += len(group)
        return places


class RoundPlay:
    """One deal in progress: the stake, the raises and who answered them."""

    def __init__(
        self, game: Game, number: int, participants: list[str], absent: dict, joined: list
    ) -> None:
        self.game = game
        self.rules = game.rules
        self.number = number
        self.participants = participants
        self.present = set(participants)
        self.absent = dict(absent)
        self.toilet = {p for p, why in absent.items() if why == "toilet" and p in self.present}
        self.joined = list(joined)
        self.active: list[str] = list(participants)  # seat order
        self.stake = 1
        self.prior = 1
        self.raisers: set[str] = set()
        self.raise_count = 0
        self.answered: set[str] = set()  # answered the latest raise (stay or knock)
        self.knocked = False  # a `knock` event happened (blind and armoede do not count)
        self.blind_knocker: str | None = None
        self.folds: dict[str, int] = {}
        self.knocks: dict[str, int] = {}
        self.penalties: dict[str, int] = {}
        self.pussy_earned: dict[str, int] = {}
        self.laundry: list[tuple[str, bool]] = []  # (player, bluff scored round_max)
        self.laundry_by: set[str] = set()
        self.jack_beaten: dict[str, int] = {}
        self.disqualified: list[str] = []
        self.events: list[dict[str, Any]] = []
        self.ended_by: str | None = None
        self.winner: str | None = None
        self.win_recorded = False
        self.jack = False
        self.jacks_shown = 0
        self.four_rank: str | None = None
        self.unit_points: dict[str, int] = {}
        self.sudden_death = game.sudden_death is not None
        self.dealer = game.dealer_for(participants)
        self.armoede = self._armoede()
        if self.armoede:
            # The round opens as if the armoede players had knocked.
            self.raisers = set(self.armoede)
            self._raise(2)
        self.stakes = [self.stake]  # before the first event, then after each one

    def _armoede(self) -> list[str]:
        if not self.rules["armoede"] or self.sudden_death:
            return []
        poor = self.game.max_points - 1
        if poor not in self.game.totals.values():
            return []
        return [p for p in self.participants if self.game.total_of(p) == poor]

    @property
    def leader(self) -> str:
        """Who leads the first trick: the first player in the round left of the dealer."""
        index = self.participants.index(self.dealer)
        return self.participants[(index + 1) % len(self.participants)]

    @property
    def over(self) -> bool:
        return self.ended_by is not None

    def must_answer(self) -> list[str]:
        """Who still has to answer the latest raise, in turn from the raiser (clockwise)."""
        if not self.raise_count or self.over:
            return []
        waiting = [
            p
            for p in self.active
            if p not in self.raisers and p not in self.answered and p not in self.toilet
        ]
        first = self._seat_after_raisers()
        seats = len(self.participants)
        return sorted(waiting, key=lambda p: (self.participants.index(p) - first) % seats)

    def still_in(self) -> list[str]:
        """Who counts for the all-fold rule: the round ends when one of them is left. The
        active players, less those away on the toilet: only a raise can be folded to, and the
        first raise folds them (``_raise``), so a fold never leaves them in."""
        return [p for p in self.active if p not in self.toilet]

    def _seat_after_raisers(self) -> int:
        indexes = [self.participants.index(p) for p in self.raisers if p in self.present]
        return (max(indexes) + 1) if indexes else 0

    # --- checks: None when allowed, else the refusal ----------------------------------------
    def _check_player(self, player: str) -> Refusal | None:
        if player not in self.present:
            if self.game.is_out(player):
                return Refusal("out_of_game", player=player)
            return Refusal("not_in_round", player=player)
        if player in self.toilet:
            return Refusal("away_from_table", player=player)
        return None

    def _check_active(self, player: str) -> Refusal | None:
        refusal = self._check_player(player)
        if refusal is not None:
            return refusal
        if player in self.folds:
            return Refusal("folded_already", player=player)
        if self.over:
            return Refusal("round_over")
        return None

    def check_knock(self, player: str) -> Refusal | None:
        refusal = self._check_active(player)
        if refusal is not None:
            return refusal
        if player in self.raisers:
            if self.armoede and self.raise_count == 1:
                return Refusal("knock_armoede", player=player)
            return Refusal("knock_own_raise", player=player)
        if self.blind_knocker is not None and not self.rules["blind_reknock"]:
            return Refusal("no_reknock_after_blind", player=player)
        return self._check_stake(player, self.stake + 1)

    def _check_stake(self, player: str, new: int) -> Refusal | None:
        rules = self.rules
        max_stake = rules["max_stake"]
        if max_stake is not None and new > max_stake:
            return Refusal("max_stake", player=player, max_stake=max_stake)
        cap = rules["knock_cap"]
        max_points = self.game.max_points
        if cap == "knocker":
            total = self.game.total_of(player)
            if total + new > max_points:
                return Refusal("knock_cap", player=player, total=total, stake=new, max=max_points)
        elif cap == "table":
            # A player on the toilet is taken to fold at the first raise: not counted (§9).
            highest = max(
                (self.game.total_of(p) for p in self.active if p not in self.toilet),
                default=self.game.total_of(player),
            )
            if new > max_points - highest:
                return Refusal(
                    "knock_cap_table", player=player, stake=new, max=max_points, total=highest
                )
        return None

    def check_blind_knock(self, player: str) -> Refusal | None:
        if not self.rules["blind_knock"]:
            return Refusal("blind_off")
        refusal = self._check_active(player)
        if refusal is not None:
            return refusal
        if self.armoede:
            return Refusal("blind_armoede", player=player)
        if self.events:
            return Refusal("blind_not_first", player=player)
        who = self.rules["blind_who"]
        if who != "any":
            totals = [self.game.total_of(p) for p in self.participants]
            mine = self.game.total_of(player)
            if who == "most_points" and mine != max(totals):
                return Refusal("blind_most_points", player=player)
            if who == "fewest_points" and mine != min(totals):
                return Refusal("blind_fewest_points", player=player)
        return self._check_stake(player, self.rules["blind_stake"])

    def _check_answer(self, player: str) -> Refusal | None:
        refusal = self._check_active(player)
        if refusal is not None:
            return refusal
        if not self.raise_count:
            return Refusal("no_raise_to_answer", player=player)
        if player in self.raisers:
            return Refusal("answer_own_raise", player=player)
        if player in self.answered:
            return Refusal("answered_already", player=player)
        return None

    def check_fold(self, player: str) -> Refusal | None:
        refusal = self._check_answer(player)
        if refusal is not None:
            return refusal
        limit = self.rules["fold_limit"]
        if limit and self.game.fold_streak.get(player, 0) >= limit:
            return Refusal("fold_limit", player=player, count=self.game.fold_streak[player])
        return None

    def check_stay(self, player: str) -> Refusal | None:
        return self._check_answer(player)

    def check_win(self, player: str, jack: bool = False) -> Refusal | None:
        if self.ended_by == "all_fold" and not self.win_recorded and player == self.winner:
            if jack:
                return Refusal("win_jack_after_all_fold", player=player)
            return None
        refusal = self._check_player(player)
        if refusal is not None:
            return refusal
        if self.over:
            return Refusal("round_over")
        if player in self.folds and (
            player in self.disqualified or self.rules["folded_winner"] != "all_lose"
        ):
            return Refusal("win_folded", player=player)
        return None

    def _check_before_knock(self, player: str, code: str) -> Refusal | None:
        refusal = self._check_active(player)
        if refusal is not None:
            return refusal
        if self.knocked:
            return Refusal(code, player=player)
        return None

    def check_four_of_a_kind(self, player: str) -> Refusal | None:
        if not self.rules["four_of_a_kind"]:
            return Refusal("four_off")
        return self._check_before_knock(player, "four_after_knock")

    def check_laundry(self, player: str, challenger: str | None = None) -> Refusal | None:
        if not self.rules["laundry"]:
            return Refusal("laundry_off")
        refusal = self._check_before_knock(player, "laundry_after_knock")
        if refusal is not None:
            return refusal
        if player in self.laundry_by:
            return Refusal("laundry_twice", player=player)
        if challenger is not None:
            if challenger == player:
                return Refusal("laundry_self", player=player)
            refusal = self._check_player(challenger)
            if refusal is not None:
                return refusal
        return None

    def check_jack_beaten(self, player: str) -> Refusal | None:
        if not self.rules["jack_beaten_by_queen"]:
            return Refusal("jack_beaten_off")
        refusal = self._check_participant(player)
        if refusal is not None:
            return refusal
        if self.ended_by in ("all_fold", "four_of_a_kind"):
            return Refusal("round_over")
        if player in self.folds:  # RULES.md §6: a jack in the last trick; theirs was not in it
            return Refusal("jack_beaten_folded", player=player)
        return None

    def check_penalty(self, player: str) -> Refusal | None:
        return self._check_participant(player)

    def _check_participant(self, player: str) -> Refusal | None:
        if player in self.present:
            return None
        if self.game.is_out(player):
            return Refusal("out_of_game", player=player)
        return Refusal("not_in_round", player=player)

    def check_disqualify(self, player: str) -> Refusal | None:
        """A bluffed kans op toep: also a player who folded earlier in the round (§7)."""
        refusal = self._check_player(player)
        if refusal is not None:
            return refusal
        if self.over:
            return Refusal("round_over")
        if player in self.disqualified:
            return Refusal("out_of_game", player=player)
        return None

    # --- applying events (each already checked) ---------------------------------------------
    def apply(self, event: dict[str, Any]) -> None:
        """Check one event and apply it, or raise its refusal (not yet placed)."""
        player = event["player"]
        known = self.game.known
        if player not in known:
            raise Refusal("unknown_player", player=player)
        challenger = event.get("challenger")
        if challenger is not None and challenger not in known:
            raise Refusal("unknown_player", player=challenger)
        _APPLY[event["type"]](self, player, event)
        self.events.append(event)
        self.stakes.append(self.stake)

    def _apply_knock(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_knock(player))
        self._settle_answers()
        self.raisers = {player}
        self.knocked = True
        self.knocks[player] = self.knocks.get(player, 0) + 1
        self.game.fold_streak[player] = 0
        self._raise(self.stake + 1)

    def _apply_fold(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_fold(player))
        self._fold(player, self.prior)
        game = self.game
        game.fold_streak[player] = game.fold_streak.get(player, 0) + 1
        if self.rules["pussy_points"] and self.raise_count == 1 and not self.armoede:
            count = game.pussy[player] = game.pussy.get(player, 0) + 1
            if count % 3 == 0:  # every third pussy point costs a point
                self.pussy_earned[player] = 1
        self._end_if_one_left()

    def _apply_stay(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_stay(player))
        self.answered.add(player)
        self.game.fold_streak[player] = 0

    def _apply_win(self, player: str, event: dict[str, Any]) -> None:
        jack = event.get("jack", False)
        self._refuse(self.check_win(player, jack))
        self._win(player, jack, event.get("jacks_shown", 0))

    def _apply_blind_knock(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_blind_knock(player))
        self.raisers = {player}
        self.blind_knocker = player
        self.knocks[player] = self.knocks.get(player, 0) + 1
        self.game.fold_streak[player] = 0
        self._raise(self.rules["blind_stake"])

    def _apply_four_of_a_kind(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_four_of_a_kind(player))
        self._settle_answers()
        self.winner = player
        self.four_rank = event["rank"]
        self.ended_by = "four_of_a_kind"

    def _apply_laundry(self, player: str, event: dict[str, Any]) -> None:
        challenger = event.get("challenger")
        self._refuse(self.check_laundry(player, challenger))
        self.laundry_by.add(player)
        if challenger is None:  # nobody challenged: nothing is scored
            return
        if event["genuine"]:
            self._penalise(challenger, 1)
        elif self.rules["laundry_bluff"] == "round_max":
            self.laundry.append((player, True))
        else:
            self._penalise(player, 1)

    def _apply_jack_beaten(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_jack_beaten(player))
        self._penalise(player, self.rules["jack_beaten_by_queen"])

    def _apply_penalty(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_penalty(player))
        self._penalise(player, event["points"])

    def _apply_disqualify(self, player: str, event: dict[str, Any]) -> None:
        self._refuse(self.check_disqualify(player))
        self.disqualified.append(player)
        if player not in self.folds:  # one who folded keeps their fold cost
            self._fold(player, 0)
        self._end_if_one_left()

    @staticmethod
    def _refuse(refusal: Refusal | None) -> None:
        if refusal is not None:
            raise refusal

    def _raise(self, new_stake: int) -> None:
        self.prior = self.stake
        self.stake = new_stake
        self.raise_count += 1
        self.answered = set()
        if self.raise_count == 1 and self.toilet:
            # Dealt in but away: taken to fold at the first knock (§9).
            # Also an armoede player away: the opening raise is made for them, not by them.
            for player in self.participants:
                if player in self.toilet:
                    self._fold(player, self.prior)
            self._end_if_one_left()

    def _settle_answers(self) -> None:
        """Whoever did not fold the latest raise stayed: that resets their fold streak."""
        if not self.raise_count:
            return
        streak = self.game.fold_streak
        for player in self.active:
            if player not in self.raisers and player not in self.toilet:
                streak[player] = 0

    def _fold(self, player: str, cost: int) -> None:
        self.folds[player] = cost
        self.active.remove(player)

    def _end_if_one_left(self) -> None:
        if len(self.active) == 1 and not self.over:
            self.winner = self.active[0]
            self.ended_by = "all_fold"
            if self.raise_count:
                # §11: the one still in when the others folded on a raise stayed on it, also the
                # armoede player left on the opening (who never knocked) and one who never got
                # to answer; no `win` follows to settle the answers (``_win`` returns early).
                self.game.fold_streak[self.winner] = 0

    def _win(self, player: str, jack: bool, jacks_shown: int) -> None:
        if self.ended_by == "all_fold":
            self.win_recorded = True
            self.jacks_shown = jacks_shown
            return
        self._settle_answers()
        self.win_recorded = True
        if player in self.folds:  # folded_winner "all_lose": nobody wins
            self.ended_by = "all_lose"
            return
        self.winner = player
        self.jack = jack
        self.ended_by = "win"

    def _penalise(self, player: str, points: int) -> None:
        self.penalties[player] = self.penalties.get(player, 0) + points

    # --- scoring ---------------------------------------------------------------------------
    def score(self) -> tuple[dict[str, int], dict[str, int] | None]:
        """Each participant's result (and each side's, in team toepen)."""
        rules = self.rules
        stake = self.stake
        winner = self.winner
        ended_by = self.ended_by
        loss = stake
        win = 0
        if ended_by == "win":
            if self.jack and rules["jack_win_minus"]:
                win = -1
            if self.jack and rules["jack_win_double"] and stake >= 2:
                loss = 2 * stake
        elif ended_by == "four_of_a_kind":
            loss = rules["four_of_a_kind"]
            if self.four_rank == "jack" and rules["jack_win_minus"]:
                win = -1
        elif ended_by == "all_fold":
            win = self._jack_knock_bonus()
        base: dict[str, int] = {}
        folds = self.folds
        for player in self.participants:
            if player in folds:
                base[player] = folds[player]
            elif player == winner:
                base[player] = win
            else:
                base[player] = loss
        points = dict(base)
        for player, bluffed in self.laundry:
            if bluffed:  # round_max: 1 plus the larger of their own and the highest other
                highest = max((v for p, v in base.items() if p != player), default=0)
                points[player] += 1 + max(base[player], highest) - base[player]
        for player, extra in self.penalties.items():
            points[player] += extra
        for player, extra in self.pussy_earned.items():
            points[player] += extra
        if self.game.side_of is None:
            self.unit_points = points
            return points, None
        side_points = self._side_points(base, points)
        self.unit_points = side_points
        return points, side_points

    def _jack_knock_bonus(self) -> int:
        """Boerentoep: everybody folded to the winner's knock and the winner shows jacks."""
        if not self.rules["jack_knock_bonus"] or self.winner not in self.raisers:
            return 0
        shown = self.jacks_shown
        if self.raise_count == 1:
            return -(shown - 1) if shown >= 2 else 0
        return -shown

    def _side_points(self, base: dict[str, int], points: dict[str, int]) -> dict[str, int]:
        """A side pays once: the winner's side their result, other sides their worst (§13a)."""
        game = self.game
        winning_side = game.unit(self.winner) if self.winner is not None else None
        sides: dict[str, int] = {}
        for side, members in (game.teams or {}).items():
            playing = [p for p in members if p in base]
            if side == winning_side:
                value = base[self.winner]  # type: ignore[index]
            else:
                value = max((base[p] for p in playing), default=0)
            value += sum(points[p] - base[p] for p in playing)
            sides[side] = value
        return sides


_APPLY = {
    "knock": RoundPlay._apply_knock,
    "fold": RoundPlay._apply_fold,
    "stay": RoundPlay._apply_stay,
    "win": RoundPlay._apply_win,
    "blind_knock": RoundPlay._apply_blind_knock,
    "four_of_a_kind": RoundPlay._apply_four_of_a_kind,
    "laundry": RoundPlay._apply_laundry,
    "jack_beaten": RoundPlay._apply_jack_beaten,
    "penalty": RoundPlay._apply_penalty,
    "disqualify": RoundPlay._apply_disqualify,
}


@dataclass
class TableView:
    """What may happen now: the tablet draws its buttons from this, so it must be exact."""

    round_number: int
    started: bool  # events have been recorded in this round
    finished: bool  # the session is over
    stake: int
    prior_stake: int
    dealer: str | None
    leader: str | None
    participants: list[str]
    active: list[str]
    folded: dict[str, int]
    absent: dict[str, str]
    raisers: list[str]
    must_answer: list[str]
    may_knock: dict[str, Refusal | None]
    may_blind_knock: dict[str, Refusal | None]
    may_fold: dict[str, Refusal | None]
    may_stay: dict[str, Refusal | None]
    may_win: dict[str, Refusal | None]
    may_four_of_a_kind: dict[str, Refusal | None]
    may_laundry: dict[str, Refusal | None]
    may_jack_beaten: dict[str, Refusal | None]
    armoede: list[str]
    playing_for_death: list[str]
    blind_knock_possible: bool
    laundry_possible: bool
    four_of_a_kind_possible: bool
    jack_beaten_possible: bool
    totals: dict[str, int]
    events: list[dict[str, Any]] = field(default_factory=list)
    stakes: list[int] = field(default_factory=list)  # before the first event, after each one
    sudden_death: bool = False
    refusal: Refusal | None = None  # why no round can start (e.g. too few players)
    # Who deals the next round if this player takes the last trick (or shows four of a kind),
    # among the players not out before this round: a tablet without a connection shows it
    # after a round-ending tap; the answer to that tap, scored, has the final word.
    next_dealers: dict[str, str] = field(default_factory=dict)
    # Who counts for the all-fold rule (``RoundPlay.still_in``): a tablet without a connection
    # ends the round when a fold (or the first raise) leaves one of them.
    still_in: list[str] = field(default_factory=list)


class Table:
    """The state after a replay, from which ``Result.what_now()`` builds a ``TableView``."""

    def __init__(self, game: Game, play: RoundPlay | None, refusal: Refusal | None = None):
        self.game = game
        self.play = play
        self.refusal = refusal

    def view(self) -> TableView:
        game, play = self.game, self.play
        number = len(game.rounds) + 1
        if play is None or game.finished:
            return TableView(
                round_number=number,
                started=False,
                finished=game.finished,
                stake=0,
                prior_stake=0,
                dealer=None,
                leader=None,
                participants=[],
                active=[],
                folded={},
                absent={},
                raisers=[],
                must_answer=[],
                may_knock={},
                may_blind_knock={},
                may_fold={},
                may_stay={},
                may_win={},
                may_four_of_a_kind={},
                may_laundry={},
                may_jack_beaten={},
                armoede=[],
                playing_for_death=[],
                blind_knock_possible=False,
                laundry_possible=False,
                four_of_a_kind_possible=False,
                jack_beaten_possible=False,
                totals=dict(game.totals),
                refusal=self.refusal,
            )
        everyone = play.participants
        may_knock = {p: play.check_knock(p) for p in everyone}
        may_blind = {p: play.check_blind_knock(p) for p in everyone}
        may_four = {p: play.check_four_of_a_kind(p) for p in everyone}
        may_laundry = {p: play.check_laundry(p) for p in everyone}
        return TableView(
            round_number=play.number,
            started=bool(play.events),
            finished=False,
            stake=play.stake,
            prior_stake=play.prior,
            dealer=play.dealer,
            leader=play.leader,
            participants=list(everyone),
            active=list(play.active),
            folded=dict(play.folds),
            absent=dict(play.absent),
            raisers=[p for p in everyone if p in play.raisers],
            must_answer=play.must_answer(),
            may_knock=may_knock,
            may_blind_knock=may_blind,
            may_fold={p: play.check_fold(p) for p in everyone},
            may_stay={p: play.check_stay(p) for p in everyone},
            may_win={p: play.check_win(p) for p in everyone},
            may_four_of_a_kind=may_four,
            may_laundry=may_laundry,
            may_jack_beaten={p: play.check_jack_beaten(p) for p in everyone},
            armoede=list(play.armoede),
            playing_for_death=[
                p
                for p in play.active
                if game.total_of(p) + play.stake >= game.max_points and not play.sudden_death
            ],
            blind_knock_possible=any(r is None for r in may_blind.values()),
            laundry_possible=any(r is None for r in may_laundry.values()),
            four_of_a_kind_possible=any(r is None for r in may_four.values()),
            jack_beaten_possible=bool(play.rules["jack_beaten_by_queen"]) and not play.over,
            totals=dict(game.totals),
            events=list(play.events),
            stakes=list(play.stakes),
            sudden_death=play.sudden_death,
            next_dealers={p: game.dealer_if_won(play, p) for p in play.active},
            still_in=play.still_in(),
        )


def play_session(
    players: list[str],
    rules: dict[str, Any],
    rounds: list[Any],
    *,
    start: dict[str, int],
    teams: dict[str, list[str]] | None,
    dealer: str | None,
    open_round: bool,
) -> Result:
    """Replay the rounds of a session whose header is checked; each round and event is checked
    as it is reached, so a refusal always names the first thing that is wrong."""
    game = Game(players, rules, start=start, teams=teams, dealer=dealer)
    last = len(rounds)
    play: RoundPlay | None = None
    for number, raw_round in enumerate(rounds, start=1):
        absent, join, events = check_round(raw_round, number)
        play = game.new_round(absent, join)
        if len(events) > MAX_EVENTS:
            raise Refusal("too_many_events", limit=MAX_EVENTS).at(number, MAX_EVENTS + 1)
        for index, raw_event in enumerate(events, start=1):
            try:
                play.apply(check_event(raw_event))
            except Refusal as refusal:
                raise refusal.at(number, index) from None
        if not play.over:
            if open_round and number == last:
                break
            raise Refusal("no_winner").at(number)
        game.finish_round(play)
        play = None
    refusal = None
    if play is None and not game.finished:
        try:
            play = game.new_round({}, [])
        except Refusal as error:  # e.g. too few players present: no round can start
            refusal = error
    return Result(
        game="strafpunten",
        players=list(game.seats),
        rules=rules,
        rounds=game.rounds,
        totals=dict(game.totals),
        eliminated=list(game.eliminated),
        finished=game.finished,
        winner=game.winner,
        loser=game.loser,
        places=game.places(),
        teams=teams,
        sudden_death=list(game.sudden_death) if game.sudden_death else None,
        _table=Table(game, play, refusal),
    )
