"""One game in full, as a board mail and a game page show it (`BoardView`): seats, moves,
clocks, offers, the position, and the engine's hidden state only through its public notes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from pbm.facts import Fact
from pbm.games import LEAVING, BoardCell, Game, MoveExample, MoveReport
from pbm.games.fairdice import make_record
from pbm.store.models import Board, BoardEvent, BoardStatus, MoveRecord, Offer, OfferKind
from pbm.views.moves import NUMBER_WIDTH, TALLY_UNITS, EventView, MoveView, move_report
from pbm.views.offers import OfferView
from pbm.views.seats import SeatView
from pbm.views.standing import Standing, end_fact
from pbm.views.timing import TimeView


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
    drawing, below = engine.drawing(state, viewer=viewer)
    then = BoardView(
        game_type=game.game_type,
        title=engine.title,
        attribution=engine.attribution,
        board=game.board,
        options=options_text(engine, game.options),
        status=game.status,
        seats=seats,
        moves=[
            MoveView(m.number, m.seat, m.notation, m.comment, m.created_at, move_report(m.report), bool(m.auto))
            for m in moves
        ],
        board_text=engine.render(state, viewer=viewer),
        drawing=drawing,
        drawing_facts=below,
        cells=engine.cells(state) if with_cells else [],
        note_facts=engine.public_facts(state, game_over=at_move is None and game.status != BoardStatus.ACTIVE),
        to_move=None,
        winners=[],
        end_fact=None,
        created_at=game.created_at,
        updated_at=game.updated_at,
        tally=engine.tally(state),
        tally_unit=engine.tally_unit,
        at_move=at_move,
        viewer=viewer,
        events=[EventView(e.after_move, Fact.from_json(e.fact), e.created_at) for e in _shown(events, at_move)],
        thinking=[timedelta(seconds=s.thinking_seconds) for s in game.seats] if game.time_control else None,
        moves_before=moves_before,
        widest_move=widest_move,
    )
    return then if at_move is not None else _now(then, engine, game, state, in_play, offer, queued, time)


def _shown(events: Sequence[BoardEvent], at_move: int | None) -> list[BoardEvent]:
    """The events that had happened by move `at_move` (all of them, without)."""
    return [event for event in events if at_move is None or event.after_move <= at_move]


def _now(
    then: BoardView,
    engine: Game[Any],
    game: Board,
    state: Any,
    in_play: set[int],
    offer: Offer | None,
    queued: Sequence[str],
    time: TimeView | None,
) -> BoardView:
    """The board as it stands now, which a board after a move (`then`, as `board_view` makes it) does
    not show: whose turn it is and an example of a move, the result, the proposal waiting, the
    viewer's queue, the clocks and the head of the hash chain."""
    active = game.status == BoardStatus.ACTIVE
    to_move = then.seats[game.to_move] if active and game.to_move is not None else None
    return replace(
        then,
        to_move=to_move,
        winners=[then.seats[i] for i in (game.winners or [])],
        end_fact=end_fact(game),
        end_code=game.end_code or "",
        finished_at=game.finished_at,
        offer=_offer_view(offer, then.seats, in_play, then.moves) if offer is not None else None,
        queued=tuple(queued) if active else (),
        time=time,
        example=engine.example_move(state) if to_move is not None else None,
        chain_hash=game.chain_head,
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


def queue_text(lines: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """A queue's lines as the player wrote them, in canonical notation: ``if b3 then c3``, and for
    the line played whatever the others play, ``else d4`` (or the move alone when it is the only line)."""
    if len(lines) == 1 and not lines[0]["if"]:
        return (lines[0]["then"],)
    return tuple(
        f"if {' '.join(line['if'])} then {line['then']}" if line["if"] else f"else {line['then']}" for line in lines
    )
