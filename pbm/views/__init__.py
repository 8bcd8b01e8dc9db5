"""Read models: what a mail or a page shows about a game, a player or a rating, ready to render.

The one place a game's state becomes words: mail templates and web pages alike
read these. Built from stored rows and the game's engine, so templates need
neither the database nor the rules. Private data stays out: no addresses, no reply tokens, and the
engine's hidden state only through `public_notes` (a dice commitment, the seed
once the game is over) and `cells` (what the board shows anyway).

`BoardView` is one game in full (a board mail, a game page); `GameSummary` is
one line of a list of games, made from the stored row alone, without loading
the engine state, so lists of many games stay cheap. Both say where their game
stands the same way (`Standing`). `RatingView` is a player's rating in one type.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pbm.bots
import pbm.games
from pbm import elo
from pbm.facts import Fact
from pbm.games import FORFEIT, LEAVING, RESIGN, UNDO, BoardCell, Game, MoveExample, MoveReport, UnknownGame
from pbm.games.fairdice import make_record
from pbm.store import bot_players
from pbm.store.models import Board, BoardEvent, BoardStatus, MoveRecord, Offer, OfferKind, OpenChallenge, Player, Rating
from pbm.timekeeping.clocks import FOREVER, TimeControl, Turn

TALLY_UNITS = ("cell",)
"""The tally units the catalogue has words for (``tally-cells``): Cephalopod's."""

NUMBER_WIDTH = 5
"""Characters before each move in the move list: its number, right-aligned in four, and a space."""


def moves_text(count: int) -> str:
    """``1 move``, ``3 moves``.

    >>> moves_text(1), moves_text(0)
    ('1 move', '0 moves')
    """
    return f"{count} move{'' if count == 1 else 's'}"


def joined_names(names: Iterable[str]) -> str:
    """``alice``, ``alice and bob``, ``alice, bob and carol``.

    >>> joined_names(["alice", "bob", "carol"])
    'alice, bob and carol'
    """
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


SEAT_WORDS = {"South": "dodeca-south", "North": "dodeca-north"}
"""Seat names that are words of a language (Dodeca's South and North), by their catalogue code;
every other seat name (Paren, Angle ...) is a proper name, said as it is in every language."""


@dataclass(frozen=True)
class SeatView:
    index: int
    name: str
    """The seat's name in the game: Paren, Angle, South ..."""
    userid: str
    out: bool = False
    """Out before the game's end: eliminated, or resigned from a game the others play on."""
    bot_level: int | None = None
    """The level of the bot in this seat (`pbm.store.bot_players`); None for a person."""

    @property
    def named(self) -> str | Fact:
        """The player as a mail names them in a sentence: the userid, or for a bot that it is one
        (``bot3 (computer, level 3)``)."""
        return self.userid if self.bot_level is None else Fact("bot-named", userid=self.userid, level=self.bot_level)

    @property
    def said_name(self) -> Fact:
        """The seat's name as a reader's language says it: ``South`` is ``Sud`` in French, ``Paren`` stays."""
        code = SEAT_WORDS.get(self.name)
        return Fact(code) if code is not None else Fact("seat-name", name=self.name)

    @property
    def heading(self) -> Fact:
        """The seat's name as the move list heads its column: ``Angle``, ``Angle (out)``."""
        return Fact("seat-out", seat=self.said_name) if self.out else self.said_name


@dataclass(frozen=True)
class ClockView:
    """One player's clock, where the game has clocks (``--totaltime``, ``--clock``)."""

    userid: str
    used: timedelta
    """Thinking time so far (the turn under way included)."""
    left: timedelta | None
    """What is left before the player forfeits on their clock: the bank, or the total."""


@dataclass(frozen=True)
class TimeView:
    """A game's time as players see it: the rules, the turn under way, the clocks."""

    rules: Fact
    """The time rules, to be said in each reader's words (`pbm.timekeeping.clocks.TimeControl.said`)."""
    rule_words: str
    """The same as challenge options: ``--nagtime=7 --forfeittime=21``."""
    rule_facts: tuple[Fact, ...] = ()
    """The time rules as facts, one a rule (`pbm.timekeeping.clocks.TimeControl.sentence_facts`):
    `rules` in any language."""
    to_move: str | None = None
    waited: timedelta | None = None
    """How long the player to move has had the turn (time away not counted)."""
    forfeit_at: datetime | None = None
    why: Fact | None = None
    """Which time rule the forfeit comes from (`pbm.timekeeping.clocks.Turn.why`)."""
    near: bool = False
    """The forfeit is near enough to say so in every board mail: past the nag time, or within two days."""
    away_until: datetime | None = None
    """The player to move is away until then."""
    clocks: list[ClockView] = field(default_factory=list)


def time_view(board: Board, rules: TimeControl, turn: Turn | None) -> TimeView:
    """`board`'s time: `turn` is where the player to move stands (None once the game is over)."""
    clocks = []
    if rules.has_clocks:
        for seat in board.seats:
            used = timedelta(seconds=seat.thinking_seconds)
            mover = turn is not None and seat.seat == board.to_move
            if mover and turn is not None:
                used += turn.waited
                left = turn.bank_left if turn.bank_left is not None else turn.total_left
            elif seat.bank_seconds is not None:
                left = timedelta(seconds=seat.bank_seconds)
            else:
                left = rules.total - used if rules.total is not None else None
            clocks.append(ClockView(seat.player.userid, used, left))
    if turn is None or board.to_move is None:
        return TimeView(rules.said(), rules.words(all_rules=True), tuple(rules.sentence_facts()), clocks=clocks)
    away = turn.away_now
    return TimeView(
        rules.said(),
        rules.words(all_rules=True),
        tuple(rules.sentence_facts()),
        to_move=board.seats[board.to_move].player.userid,
        waited=turn.waited,
        forfeit_at=turn.forfeit_at,
        why=turn.why,
        near=turn.forfeit_at < FOREVER and (turn.waited >= rules.nag or turn.forfeit_at - turn.now <= NEAR),
        away_until=away.end if away is not None and away.end < FOREVER else None,
        clocks=clocks,
    )


NEAR = timedelta(days=2)


@dataclass(frozen=True)
class OfferView:
    """A proposal waiting at a board: who made it, what it would do, who still has to answer."""

    kind: str
    """``draw`` or ``undo``."""
    proposer: str
    waiting: list[str]
    """The userids that have not voted yet."""
    takes_back: MoveView | None = None
    """For an undo, the move it would take back."""


@dataclass(frozen=True)
class OfferNews:
    """What just happened to a proposal, for the first line of the mails it causes."""

    kind: str
    userid: str
    """Who did it: the proposer, or the player who voted."""
    action: str
    """``proposed``, ``accepted``, ``rejected``, or ``withdrawn`` (by a move)."""
    proposer: str


@dataclass(frozen=True)
class EventView:
    after_move: int
    fact: Fact
    """What happened (``event-away``): the move list says it."""
    at: datetime


@dataclass(frozen=True)
class MoveView:
    number: int
    seat: int
    notation: str
    comment: str
    played_at: datetime
    report: MoveReport | None = None
    """What the move did, as the engine said when it was played (None for moves recorded before)."""
    auto: bool = False
    """Played from the player's queue."""

    @property
    def did(self) -> Fact:
        """What the move did, after the mover's name: ``played c3=b3+d3, capturing 2 dice (...)``,
        and ``(Auto)`` when the queue played it."""
        if self.report is not None:
            did = self.report.fact
        else:
            did = {RESIGN: Fact("resigned"), FORFEIT: Fact("forfeited")}.get(self.notation) or Fact(
                "played", move=self.notation
            )
        return Fact("played-from-queue", did=did) if self.auto else did

    @property
    def shown_fact(self) -> Fact:
        """`shown` for a reader: ``resign`` is ``abandon`` in French, whatever the player wrote."""
        code = {RESIGN: "move-list-resign", FORFEIT: "move-list-forfeit", UNDO: "move-list-undo"}.get(self.notation)
        entry = Fact(code) if code is not None else Fact("move-list-move", move=self.notation)
        return Fact("move-list-auto", entry=entry) if self.auto else entry

    @property
    def shown(self) -> str:
        """The move as the move list writes it: its notation, ``resign``, ``Forfeit`` or ``UNDO``; pbmserv's
        ``(Auto)`` after a move played from the queue."""
        shown = {UNDO: "UNDO", FORFEIT: "Forfeit"}.get(self.notation, self.notation)
        return f"{shown} (Auto)" if self.auto else shown


def move_report(data: dict[str, Any] | None) -> MoveReport | None:
    """A `MoveReport` from the JSON a move row keeps (`report_data` wrote it)."""
    if data is None:
        return None
    tally, why = data.get("tally"), data.get("why")
    return MoveReport(
        Fact.from_json(data["fact"]),
        tuple(data.get("eliminated", ())),
        Fact.from_json(why) if why is not None else None,
        tuple(tally) if tally else None,
    )


def report_data(report: MoveReport) -> dict[str, Any]:
    """The JSON a move row keeps of `report`: facts, never words (``{"fact": ..., "why": ...}``)."""
    data: dict[str, Any] = {"fact": report.fact.to_json()}
    if report.eliminated:
        data["eliminated"] = list(report.eliminated)
    if report.why is not None:
        data["why"] = report.why.to_json()
    if report.tally is not None:
        data["tally"] = list(report.tally)
    return data


def end_fact(game: Board) -> Fact | None:
    """How the game at `game` ended, as the row keeps it (`Board.end_fact`); None while it goes on."""
    return Fact.from_json(game.end_fact) if game.end_fact is not None else None


@dataclass(frozen=True, kw_only=True)
class Standing:
    """Where a game stands: its status, whose turn it is, or who won and how; and those in words."""

    status: BoardStatus
    to_move: SeatView | None
    winners: list[SeatView]
    end_fact: Fact | None
    """How it ended, as a fact whose words follow the winners' names (`Board.end_fact`); for a
    cancelled game, why. None while the game goes on."""
    end_code: str = ""
    """The kind of ending (`Board.end_code`); empty while the game goes on."""

    @property
    def result_fact(self) -> Fact:
        """How a game that is over ended: ``bob won, holding 13 of the 25 cells``, ``cancelled: ...``."""
        assert self.end_fact is not None, "only a game that is over has a result"
        if self.status == BoardStatus.CANCELLED:
            return Fact("cancelled-because", why=self.end_fact)
        return Fact("winners-result", winners=[s.userid for s in self.winners], result=self.end_fact)

    @property
    def sentence_fact(self) -> Fact:
        """One sentence: ``It is bob's turn (Angle).``, ``bob won, holding 13 of the 25 cells.``"""
        if self.status == BoardStatus.CANCELLED:
            return Fact("game-was-cancelled", why=self.end_fact)
        if self.status == BoardStatus.FINISHED:
            return Fact("game-result", result=self.result_fact)
        assert self.to_move is not None
        return Fact("turn-of", userid=self.to_move.userid, seat=self.to_move.said_name)

    @property
    def standing_fact(self) -> Fact:
        """A few words for a list or a subject: ``bob to move``, ``won by bob``, ``tie: alice and bob``."""
        if self.status == BoardStatus.CANCELLED:
            return Fact("standing-cancelled")
        if self.status == BoardStatus.FINISHED:
            names = [s.userid for s in self.winners]
            return Fact("standing-won-by", userid=names[0]) if len(names) == 1 else Fact("standing-tie", userids=names)
        if self.to_move is not None:
            return Fact("standing-to-move", userid=self.to_move.userid)
        return Fact("standing-active")


@dataclass(frozen=True, kw_only=True)
class BoardView(Standing):
    game_type: str
    title: str
    attribution: str
    board: int
    options: str
    """The challenge options as typed: ``-size=7 -dice=12``, or ``""``."""
    seats: list[SeatView]
    moves: list[MoveView]
    board_text: str
    drawing: str
    """`board_text` without the lines below it that are words: those are `drawing_facts` (`Game.drawing`)."""
    drawing_facts: list[Fact]
    note_facts: list[Fact]
    """The engine's public notes (a dice commitment), as facts: each reader's words say them
    (`Game.public_facts`)."""
    created_at: datetime
    updated_at: datetime
    cells: list[BoardCell] = field(default_factory=list)
    """The board cell by cell (the engine's `cells`), for pictures other than ASCII (pages, not mails)."""
    tally: tuple[int, ...] | None = None
    """Every seat's count of `tally_unit` on this board (cells held), for games that keep one."""
    tally_unit: str = ""
    finished_at: datetime | None = None
    offer: OfferView | None = None
    """A draw or an undo waiting for the players' votes."""
    at_move: int | None = None
    """Set when this is the board as it stood after an earlier move."""
    viewer: int | None = None
    """The seat of the player this view is for, if any."""
    queued: tuple[str, ...] = ()
    """The viewer's queued lines (`queue_text`): theirs alone, never in anyone else's view."""
    time: TimeView | None = None
    """The game's time, where the caller knows the clock (None: not shown)."""
    thinking: list[timedelta] | None = None
    """Each seat's thinking time as the store kept it (time away not counted); None for a game
    from before it was kept."""
    events: list[EventView] = field(default_factory=list)
    """What happened between moves (a player away, back), after the move it followed."""
    moves_before: int = 0
    """Moves played before the first of `moves`: a mail about a move carries only the last few."""
    widest_move: int = 0
    """Characters of the widest entry of the whole move list, when `moves` is only its end."""
    chain_hash: str | None = None
    """The hash of the game's move chain after its last move (`pbm.crypto.chain`), for the
    signed receipt a board mail carries; None for an earlier board."""
    example: MoveExample | None = None
    """A legal move of the player to move, taken apart for writing moves by hand, in games whose
    notation needs one (`Game.example_move`)."""

    @property
    def move_count(self) -> int:
        return self.moves_before + len(self.moves)

    @property
    def last_move(self) -> MoveView | None:
        return self.moves[-1] if self.moves else None

    def moves_since_viewer(self) -> list[MoveView]:
        """The moves shown after the viewer's own last one: what happened since they moved (every
        move shown when theirs is not among them)."""
        own = [index for index, move in enumerate(self.moves) if move.seat == self.viewer]
        return self.moves[own[-1] + 1 :] if own else list(self.moves)

    @property
    def over(self) -> bool:
        return self.at_move is None and self.status != BoardStatus.ACTIVE

    @property
    def summary_fact(self) -> Fact:
        """One sentence on where the game stands, or which earlier board this is."""
        if self.at_move is not None:
            return Fact("board-after-move", number=self.at_move)
        return self.sentence_fact

    @property
    def viewer_to_move(self) -> bool:
        return self.to_move is not None and self.to_move.index == self.viewer

    def names_of(self, seats: Iterable[int]) -> str:
        """The userids of `seats`, joined as an English sentence writes them."""
        return joined_names(self.userids_of(seats))

    def move_news(self, move: MoveView) -> Fact:
        """What `move` did, as the first line of the mail about it: ``bob played c3.``"""
        return Fact("move-news", userid=self.seats[move.seat].named, did=move.did)

    def out_news(self, report: MoveReport) -> Fact:
        """Who a move put out of the game, and why: ``carol is out, with no cell left.``"""
        return Fact("players-out", userids=self.userids_of(report.eliminated), why=report.why)

    def challenge_news(self, challenger: str) -> Fact:
        """The first line of a new game's mail: ``alice challenged bob and carol to a new game.``"""
        others = [seat.named for seat in self.seats if seat.userid != challenger]
        return Fact("challenged-to-new-game", userid=challenger, userids=others)

    def bot_took_seek(self, seeker: str) -> Fact:
        """The first line of a game a bot started by taking a seek nobody else answered."""
        bot = next(seat for seat in self.seats if seat.bot_level is not None)
        return Fact("bot-took-seek", userid=seeker, bot=bot.named, game=self.title)

    def userids_of(self, seats: Iterable[int]) -> list[str]:
        """The userids of `seats`: a list parameter of a fact, joined as the reader's language joins them."""
        return [self.seats[seat].userid for seat in seats]

    def tally_text(self, tally: Sequence[int] | None = None) -> str:
        """Every seat's count: ``alice 9, bob 9, carol 7`` (this board's when no `tally` is given)."""
        counts = self.tally if tally is None else tally
        assert counts is not None
        return ", ".join(f"{seat.userid} {count}" for seat, count in zip(self.seats, counts))

    @property
    def tally_title(self) -> str:
        """`tally_unit` as the heading of a count: ``Cells``."""
        return self.tally_unit.capitalize() + "s"

    def tally_fact(self, tally: Sequence[int] | None = None, *, at_the_end: bool = False) -> Fact:
        """Every seat's count as a sentence: ``Cells: alice 9, bob 9, carol 7.``, ``Cells at the end: ...``
        (this board's when no `tally` is given). The counts are names and numbers, the same in every
        language; the heading is a word (a game whose unit has no words of its own keeps `tally_title`)."""
        counts = self.tally_text(tally)
        code = f"tally-{self.tally_unit}s{'-at-the-end' if at_the_end else ''}"
        if self.tally_unit in TALLY_UNITS:
            return Fact(code, counts=counts)
        return Fact("tally-of-at-the-end" if at_the_end else "tally-of", title=self.tally_title, counts=counts)

    @property
    def column_width(self) -> int:
        """Width of one column of the move list: a move's number, its widest entry and two spaces."""
        entries = (
            [len(m.shown) for m in self.moves]
            + [len(s.userid) for s in self.seats]
            + [len(s.name) for s in self.seats]
            + [self.widest_move]
        )
        return NUMBER_WIDTH + max(entries) + 2

    def grid(self) -> list[list[BoardCell]]:
        """The cells in rows, top row first, as a table lays them out."""
        rows: list[list[BoardCell]] = []
        for cell in self.cells:
            if not rows or rows[-1][0].y != cell.y:
                rows.append([])
            rows[-1].append(cell)
        return rows

    def dice_kinds(self) -> list[tuple[str, int]]:
        """The kinds of die on the board with their sides, fewest sides first (Dodeca's; others have none)."""
        return sorted({(c.kind, c.sides) for c in self.cells if c.kind and c.sides}, key=lambda k: k[1])

    def move_rows(self, last: int | None = None) -> list[list[MoveView | None]]:
        """Moves laid out in columns by seat, one row per round (pbmserv's move list); only the
        `last` rows when given. A seat out of the game leaves its column empty."""
        rows: list[list[MoveView | None]] = []
        last_seat = len(self.seats)
        for move in self.moves:
            if move.seat <= last_seat:
                rows.append([None] * len(self.seats))
            rows[-1][move.seat] = move
            last_seat = move.seat
        return rows[-last:] if last else rows

    def list_rows(self, last: int | None = None) -> list[list[MoveView | None] | EventView]:
        """The move list's rows (`move_rows`) with the events between moves, each after the row of
        the move it followed."""
        rows = self.move_rows(last)
        first_shown = min((m.number for row in rows for m in row if m is not None), default=1)
        events = [e for e in self.events if e.after_move >= first_shown - 1]
        listed: list[list[MoveView | None] | EventView] = []
        for row in rows:
            before = min(m.number for m in row if m is not None)
            listed += [e for e in events if e.after_move < before and e not in listed]
            listed.append(row)
        listed += [e for e in events if e not in listed]
        return listed

    def moves_before_rows(self, last: int) -> int:
        """How many moves come before the `last` rows of the move list: those a short list leaves out."""
        shown = sum(1 for row in self.move_rows(last) for move in row if move is not None)
        return self.move_count - shown

    def time_used(self) -> list[tuple[SeatView, timedelta]]:
        """The time each player took over their moves: their clocks where the game kept them (time
        away not counted), else from the move before (or the start) to theirs."""
        if self.time is not None and self.time.clocks:
            return [(seat, clock.used) for seat, clock in zip(self.seats, self.time.clocks)]
        if self.thinking is not None:
            return list(zip(self.seats, self.thinking))
        assert not self.moves_before, "the time a game took is counted over its whole move list"
        used = [timedelta(0)] * len(self.seats)
        previous = self.created_at
        for move in self.moves:
            used[move.seat] += max(move.played_at - previous, timedelta(0))
            previous = move.played_at
        return list(zip(self.seats, used))


def options_text(engine: Game[Any], options: dict[str, Any]) -> str:
    words = []
    for option in engine.options:
        if option.name in options:
            value = options[option.name]
            words.append(f"-{option.name}" if option.is_flag else f"-{option.name}={value}")
    return " ".join(words)


def board_view(
    engine: Game[Any],
    game: Board,
    state: Any,
    moves: Sequence[MoveRecord],
    *,
    viewer: int | None = None,
    at_move: int | None = None,
    with_cells: bool = False,
    offer: Offer | None = None,
    queued: Sequence[str] = (),
    time: TimeView | None = None,
    events: Sequence[BoardEvent] = (),
    moves_before: int = 0,
    widest_move: int = 0,
) -> BoardView:
    """`game` as `viewer`'s seat sees it (or as it stood after move `at_move`); `with_cells` for pictures;
    `offer`, the proposal waiting at the board; `queued`, the viewer's own queue (`queue_text`);
    `moves_before` and `widest_move` when `moves` is only the end of the list (`RecentMoves`)."""
    in_play = set(engine.seats_in_play(state))
    seats = [
        SeatView(
            s.seat, engine.seat_names[s.seat], s.player.userid, out=s.seat not in in_play, bot_level=s.player.bot_level
        )
        for s in game.seats
    ]
    current = at_move is None
    active = game.status == BoardStatus.ACTIVE
    to_move = seats[game.to_move] if current and active and game.to_move is not None else None

    def shown_at(move: int) -> bool:
        return at_move is None or move <= at_move

    note_facts = engine.public_facts(state, game_over=current and not active)
    drawing, below = engine.drawing(state, viewer=viewer)
    move_views = [
        MoveView(m.number, m.seat, m.notation, m.comment, m.created_at, move_report(m.report), bool(m.auto))
        for m in moves
    ]
    return BoardView(
        game_type=game.game_type,
        title=engine.title,
        attribution=engine.attribution,
        board=game.board,
        options=options_text(engine, game.options),
        status=game.status,
        seats=seats,
        moves=move_views,
        board_text=engine.render(state, viewer=viewer),
        drawing=drawing,
        drawing_facts=below,
        cells=engine.cells(state) if with_cells else [],
        note_facts=note_facts,
        to_move=to_move,
        winners=[seats[i] for i in (game.winners or [])] if current else [],
        end_fact=end_fact(game) if current else None,
        end_code=(game.end_code or "") if current else "",
        created_at=game.created_at,
        updated_at=game.updated_at,
        tally=engine.tally(state),
        tally_unit=engine.tally_unit,
        finished_at=game.finished_at if current else None,
        offer=_offer_view(offer, seats, in_play, move_views) if offer is not None and current else None,
        at_move=at_move,
        viewer=viewer,
        queued=tuple(queued) if current and active else (),
        time=time if current else None,
        events=[
            EventView(e.after_move, Fact.from_json(e.fact), e.created_at) for e in events if shown_at(e.after_move)
        ],
        thinking=[timedelta(seconds=s.thinking_seconds) for s in game.seats] if game.time_control else None,
        moves_before=moves_before,
        widest_move=widest_move,
        example=engine.example_move(state) if to_move is not None else None,
        chain_hash=game.chain_head if current else None,
    )


def _offer_view(offer: Offer, seats: list[SeatView], in_play: set[int], moves: list[MoveView]) -> OfferView:
    waiting = [seats[seat].userid for seat in sorted(in_play) if seat not in offer.accepted]
    takes_back = moves[-1] if offer.kind == OfferKind.UNDO and moves else None
    return OfferView(offer.kind, seats[offer.proposer].userid, waiting, takes_back)


def dice_record(engine: Game[Any], game: Board, state: Any, moves: Sequence[MoveRecord]) -> dict[str, Any] | None:
    """The record `pbm verify-dice` checks: seed, moves and every published roll.

    Only for a finished game with dice: before the end the seed is secret.
    """
    rolls = engine.published_rolls(state)
    if game.secret is None or rolls is None or game.status == BoardStatus.ACTIVE:
        return None
    played = [m.notation for m in moves if m.notation not in LEAVING]  # undo entries stay: verify replays them
    return make_record(
        game=game.game_type, seed=game.secret, moves=played, rolls=rolls, options=game.options, players=len(game.seats)
    )


@dataclass(frozen=True, kw_only=True)
class GameSummary(Standing):
    """One game in a list: who plays, how far it got, whose turn or who won."""

    game_type: str
    title: str
    board: int
    seats: list[SeatView]
    move_count: int
    created_at: datetime
    updated_at: datetime
    finished_at: datetime | None


def game_summary(engine: Game[Any], game: Board) -> GameSummary:
    """The list line of `game`, from its row and seats alone (the state is not read)."""
    seats = [SeatView(s.seat, engine.seat_names[s.seat], s.player.userid) for s in game.seats]
    to_move = seats[game.to_move] if game.status == BoardStatus.ACTIVE and game.to_move is not None else None
    return GameSummary(
        game_type=game.game_type,
        title=engine.title,
        board=game.board,
        status=game.status,
        seats=seats,
        move_count=game.move_count,
        to_move=to_move,
        winners=[seats[i] for i in (game.winners or [])],
        end_fact=end_fact(game),
        end_code=game.end_code or "",
        created_at=game.created_at,
        updated_at=game.updated_at,
        finished_at=game.finished_at,
    )


INACTIVE_AFTER = timedelta(days=180)
"""A player with no rated game of a type finished in this long is listed apart in its standings."""


@dataclass(frozen=True)
class RatingView:
    """A player's rating in one game type, as standings and a player's page show it."""

    game_type: str
    title: str
    userid: str
    rating: int
    games: int
    wins: int
    losses: int
    draws: int
    provisional: bool
    last_rated_at: datetime | None = None
    active_games: int = 0
    """Games of the type the player plays now."""
    limit: int | None = None
    """The most games of the type the player takes at once (None: no limit)."""
    seeking: int = 0
    """More games of the type the player seeks (``seek``)."""

    def inactive(self, now: datetime) -> bool:
        """No rated game of the type finished within `INACTIVE_AFTER` of `now`."""
        return self.last_rated_at is None or now - self.last_rated_at > INACTIVE_AFTER


def rating_view(
    engine: Game[Any], rating: Rating, *, active_games: int = 0, limit: int | None = None, seeking: int = 0
) -> RatingView:
    return RatingView(
        game_type=rating.game_type,
        title=engine.title,
        userid=rating.player.userid,
        rating=round(rating.rating),
        games=rating.games,
        wins=rating.wins,
        losses=rating.losses,
        draws=rating.draws,
        provisional=elo.is_provisional(rating.games),
        last_rated_at=rating.last_rated_at,
        active_games=active_games,
        limit=limit,
        seeking=seeking,
    )


@dataclass(frozen=True)
class OpenChallengeView:
    """An open challenge as its mails and ``games open`` show it."""

    game_type: str
    title: str
    board: int
    seats: tuple[str, ...]
    """Each seat's userid in order of play, ``(open)`` where it is free."""
    options: str
    expires_at: datetime

    @property
    def free(self) -> int:
        return self.seats.count(FREE_SEAT)


FREE_SEAT = "(open)"


def open_challenge_view(
    engine: Game[Any], challenge: OpenChallenge, seated: Sequence[Player | None]
) -> OpenChallengeView:
    """`challenge` with `seated`, the player in each of its seats (None where free)."""
    return OpenChallengeView(
        game_type=engine.name,
        title=engine.title,
        board=challenge.board,
        seats=tuple(p.userid if p is not None else FREE_SEAT for p in seated),
        options=options_text(engine, challenge.options),
        expires_at=challenge.expires_at,
    )


def queue_text(lines: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """A queue's lines as the player wrote them, in canonical notation: ``if b3 then c3``, and for
    the line played whatever the others play, ``else d4`` (or the move alone when it is the only line)."""
    if len(lines) == 1 and not lines[0]["if"]:
        return (lines[0]["then"],)
    return tuple(
        f"if {' '.join(line['if'])} then {line['then']}" if line["if"] else f"else {line['then']}" for line in lines
    )


WIDE_ELO = 200
"""An interval of a bot's Elo wider than this says the ladder played too few games to rate it
closely: the help and the page then say so, and how many games there were."""


@dataclass(frozen=True)
class BotLevelView:
    """One bot level of one game as the ladder (``make ladder``) measured it; the numbers are
    None for a game the ladder has not rated."""

    level: int
    userid: str
    elo: int | None = None
    """Elo counted from a player that moves at random, at 0."""
    elo_95: tuple[int, int] | None = None
    """The 95% interval of `elo`."""
    lead: int | None = None
    """Elo above the level below (the random mover below level 1)."""
    lead_95: tuple[int, int] | None = None
    games: int | None = None
    """The ladder games this level played."""
    seconds_per_move: float | None = None
    """The mean time it took to choose a move in the ladder, on the machine that ran it."""

    @property
    def shown_stronger(self) -> bool:
        """Whether the ladder has shown this level stronger than the one below: the 95% interval
        of its lead lies above 0."""
        return self.lead_95 is not None and self.lead_95[0] > 0


@dataclass(frozen=True)
class BotLadder:
    """A game's bot levels, weakest first, with what the ladder measured of them."""

    engine: Game[Any]
    levels: tuple[BotLevelView, ...]
    measured: datetime | None = None
    """The day of the measure (midnight UTC); None: the ladder has not rated this game."""
    games: int = 0
    """The ladder's games of this game, in all."""
    random_games: int = 0
    """Of them, those the random mover played (against level 1)."""

    @property
    def rough(self) -> bool:
        """Too few games to rate the levels closely: some level's Elo interval is wider than `WIDE_ELO`."""
        return any(v.elo_95 is not None and v.elo_95[1] - v.elo_95[0] > WIDE_ELO for v in self.levels)

    @property
    def not_shown_stronger(self) -> tuple[BotLevelView, ...]:
        """The measured levels the ladder has not shown stronger than the level below."""
        return tuple(v for v in self.levels if v.lead_95 is not None and not v.shown_stronger)


def bot_ladder(engine: Game[Any], levels: Sequence[int], measured: Mapping[str, Any] | None) -> BotLadder:
    """`engine`'s bot `levels` with the ladder's `measured` table (`pbm.bots.strength`; None when
    it has not rated the game). A level the table lacks is listed without numbers."""
    if measured is None:
        return BotLadder(engine, tuple(BotLevelView(level, bot_players.userid_of(level)) for level in levels))
    rows = {row["level"]: row for row in measured["levels"]}

    def interval(row: Mapping[str, Any], key: str) -> tuple[int, int] | None:
        return (int(row[key][0]), int(row[key][1])) if key in row else None

    views = []
    for level in levels:
        row = rows.get(level)
        if row is None:
            views.append(BotLevelView(level, bot_players.userid_of(level)))
            continue
        views.append(
            BotLevelView(
                level,
                bot_players.userid_of(level),
                elo=int(row["elo"]),
                elo_95=interval(row, "elo_95"),
                lead=int(row["lead"]) if "lead" in row else None,
                lead_95=interval(row, "lead_95"),
                games=int(row["games"]),
                seconds_per_move=float(row["seconds_per_move"]),
            )
        )
    day = datetime.strptime(measured["measured"], "%Y-%m-%d").replace(tzinfo=timezone.utc)
    return BotLadder(
        engine,
        tuple(views),
        measured=day,
        games=int(measured["games"]),
        random_games=int(rows[0]["games"]) if 0 in rows else 0,
    )


def bot_ladders() -> list[BotLadder]:
    """Every game's bots and their measured strength, in the order help pages list the games: what
    ``help bots`` mails and the ``/bots`` page shows. Games no bot plays (one installed as a
    plugin) are left out."""
    ladders = []
    for engine in pbm.games.all_games():
        try:
            levels = pbm.bots.levels(engine.name)
        except UnknownGame:
            continue
        ladders.append(bot_ladder(engine, levels, pbm.bots.strength(engine.name)))
    return ladders
