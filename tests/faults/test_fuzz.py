"""Hostile mail over SMTP, interleaved with a real game between real players.

One thread sends the generated garbage (`tests.faults.hostile`) as fast as the
server takes it; another plays a game, one move at a time, waiting for each to
be applied before the next, so ordinary mail keeps arriving among the hostile
ones and after them. Some of the players' moves take the shapes that once sent a
password to the opponent (a command in the Subject repeated in the body, a
command without its game name below the move, a full command below a reply's
move). The run happens once; each test below checks one promise on it.
"""

from __future__ import annotations

import base64
import random
import re
import threading
import time
from dataclasses import dataclass, field
from email.parser import BytesHeaderParser
from email.policy import compat32

import pytest

from tests.faults.audit import Tables, as_delivered, maildir_files
from tests.faults.harness import GENEROUS_LIMITS, MIB, Attempt, Refused, ServeProcess, attempt, wait_for
from tests.faults.hostile import NEWER_VERBS, Hostile, calendar_paths, hostile_mails
from tests.faults.players import Letter, Match, challenge, letter, new_player, post, signup

ORDINARY_SECONDS = 60.0
"""How long an ordinary move may wait behind hostile mail: far more than reading a few bombs may cost."""
MAIL_SECONDS = 20.0
"""Processing one mail taking longer than this is a runaway (reading is capped at seconds)."""
MEMORY_BOUND = 1024 * MIB
"""No process of the server may grow past this (the mail reader is capped at half of it)."""
SETTLE_SECONDS = 180.0
AFTER_HOSTILE = 3
"""Ordinary moves sent after the last hostile mail."""
FUZZ_HEADER = b"X-Fuzz-Mail: %d\r\n"
RESET_TOKEN = re.compile(rb"reset-[0-9a-f]{32}")
CALENDARS = 20
"""Calendar URLs with random hostile userids asked for, besides the fixed ones."""
OUR_HEADERS = {
    "from",
    "to",
    "subject",
    "date",
    "auto-submitted",
    "x-pbm-loop",
    "message-id",
    "in-reply-to",
    "references",
    "reply-to",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
    "list-unsubscribe",
    "list-unsubscribe-post",
}
"""The header fields a reply is written with (`pbm.mail.compose`): any other came from a sender."""
PAGES = [
    "/",
    "/healthz",
    "/cephalopod",
    "/cephalopod/{cephalopod}",
    "/cephalopod/standings",
    "/dodeca",
    "/dodeca/{dodeca}",
    "/players/{alice}",
    "/players/{bob}",
    "/api/games",
    "/api/cephalopod",
    "/api/cephalopod/{cephalopod}",
    "/api/dodeca/{dodeca}",
    "/api/dodeca/{dodeca}/dice",
    "/api/players/{alice}",
]


@dataclass
class FuzzRun:
    server: ServeProcess
    tables: Tables
    match: Match
    dodeca_board: int = 0
    baseline: tuple = ()
    boards: set[tuple[str, int]] = field(default_factory=set)
    """Games the players started themselves."""
    ordinary: list[tuple[Letter, int, int]] = field(default_factory=list)
    """(mail, board, move number) of every ordinary move, in the order sent."""
    hostile: list[tuple[str, Attempt]] = field(default_factory=list)
    blocked: str = ""
    unhealthy: list[str] = field(default_factory=list)
    unsettled: str = ""
    outputs: dict[str, bytes] = field(default_factory=dict)
    calendars: dict[str, int] = field(default_factory=dict)
    """The status of each hostile calendar URL asked for."""
    delivered: list[bytes] = field(default_factory=list)
    """Every mail the server handed over (its maildir): where secrets meant for players are."""
    stop: threading.Event = field(default_factory=threading.Event)
    hostile_done: threading.Event = field(default_factory=threading.Event)

    @property
    def players(self):
        return self.match.players

    def inbound_ids(self, mails: list[Letter]) -> set[int]:
        rows = self.tables.inbound_by_message_id()
        return {rows[m.message_id][0].id for m in mails if m.message_id in rows}

    def hostile_rows(self) -> dict[int, str]:
        """Stored hostile mails: row id -> the generator's kind."""
        kinds = {}
        for row_id, head in self.tables.inbound_heads().items():
            found = re.match(rb"X-Fuzz-Mail: (\d+)", head)
            if found:
                kinds[row_id] = self.hostile[int(found.group(1))][0]
        return kinds


def send_hostile(run: FuzzRun, mails: list[Hostile]) -> None:
    try:
        for index, mail in enumerate(mails):
            if run.stop.is_set():
                break
            raw = FUZZ_HEADER % index + mail.raw
            run.hostile.append((mail.kind, Attempt(0, "not sent")))
            for _ in range(3):
                answer = attempt(run.server.smtp_port, mail.envelope_from, raw, timeout=60)
                if answer.accepted or 500 <= answer.code < 600:
                    break
                time.sleep(0.3)
            run.hostile[index] = (mail.kind, answer)
    finally:
        run.hostile_done.set()


def reply_address(run: FuzzRun, player, board: int) -> str | None:
    """The Reply-To of the newest board mail `player` got for `board`."""
    parser = BytesHeaderParser(policy=compat32)
    for row in reversed(run.tables.outbox()):
        if row.recipient == player.address:
            headers = parser.parsebytes(as_delivered(run.server.outbox, row))
            if f"Board {board} " in str(headers["Subject"]) and headers["Reply-To"]:
                return re.search(r"<([^>]+)>", str(headers["Reply-To"])).group(1)
    return None


def ordinary_move(run: FuzzRun, rng: random.Random, shape: int) -> tuple[Letter, int]:
    """The next move, in one of the shapes players write."""
    match = run.match
    number = match.number
    player, move = match.next_move(rng)
    command = f"cephalopod move {match.board} {player.userid} {player.password} {move}#{number}"
    opponent = match.players[1 - match.players.index(player)]
    if shape == 1:
        body = f"{command}\n\nThe move is in the subject too."
        return letter(player.address, body, kind="move", subject=command), number
    if shape == 2:
        stray = f"move {match.board} {player.userid} {player.password} {move}"
        return letter(player.address, f"{command}\n{stray}\n\nOops, twice.", kind="move"), number
    if shape == 3:
        to = reply_address(run, player, match.board)
        if to is not None:
            return letter(
                player.address, f"{move}\n{command}\n\nYour turn, {opponent.userid}.", kind="move", to=to
            ), number
    return letter(player.address, f"{command}\n\nYour turn, {opponent.userid}.", kind="move"), number


def new_game(run: FuzzRun, rng: random.Random) -> None:
    players = run.match.players
    run.match = Match("cephalopod", players, options={"size": 9})
    post(run.server.smtp_port, challenge("cephalopod", players, "-size=9"))
    previous = max((board for game, board in run.boards if game == "cephalopod"), default=0)
    run.match.board = wait_for(
        lambda: (board := run.tables.board_of("cephalopod", run.match.userids)) and board > previous and board,
        ORDINARY_SECONDS,
    )
    if run.match.board is None:
        raise AssertionError("a challenge between the players made no game")
    run.boards.add(("cephalopod", run.match.board))


def play_ordinary(run: FuzzRun, rng: random.Random) -> None:
    after = AFTER_HOSTILE
    shape = 0
    try:
        while not run.stop.is_set():
            if run.hostile_done.is_set():
                if after == 0:
                    return
                after -= 1
            if run.match.over:
                new_game(run, rng)
            mail, number = ordinary_move(run, rng, shape % 4)
            shape += 1
            board = run.match.board
            run.ordinary.append((mail, board, number))  # before the 250: a lost answer may hide a stored mail
            post(run.server.smtp_port, mail, give_up_after=ORDINARY_SECONDS)
            if not wait_for(lambda b=board, n=number: applied(run, b, n), ORDINARY_SECONDS, interval=0.2):
                run.blocked = (
                    f"ordinary move {number} on board {board} not applied after {ORDINARY_SECONDS:.0f} s; "
                    + (waiting_before(run, mail))
                )
                return
            health = run.server.healthz()
            if health.status_code != 200:
                run.unhealthy.append(f"{health.status_code} {health.text[:200]}")
    except (Refused, OSError, AssertionError) as error:
        run.blocked = f"{type(error).__name__}: {error}"
    finally:
        run.stop.set()


def applied(run: FuzzRun, board: int, number: int) -> bool:
    return any(m.board == board and m.number == number for m in run.tables.moves() if m.game_type == "cephalopod")


def waiting_before(run: FuzzRun, mail: Letter) -> str:
    kinds = run.hostile_rows()
    pending = [row for row in run.tables.inbound() if row.status == "pending"]
    first = pending[0] if pending else None
    if first is None:
        return "nothing is pending"
    return f"{len(pending)} pending; the oldest is {kinds.get(first.id, 'an ordinary mail')} (row {first.id})"


@pytest.fixture(scope="module")
def fuzz_run(module_database_url, tmp_path_factory, scale, figures):
    backend = module_database_url.partition(":")[0].partition("+")[0]
    if backend not in scale.long_run_backends:
        pytest.skip(f"the {scale.name} form runs the fuzz run on {', '.join(scale.long_run_backends)} only")
    rng = random.Random(f"fuzz-{backend}")
    server = ServeProcess(module_database_url, tmp_path_factory.mktemp("fuzz"), env=GENEROUS_LIMITS)
    tables = Tables(module_database_url)
    alice, bob = new_player("alice", rng), new_player("bob", rng)
    run = FuzzRun(server, tables, Match("cephalopod", [alice, bob], options={"size": 9}))
    server.start()
    try:
        for player in (alice, bob):
            post(server.smtp_port, signup(player))
        post(server.smtp_port, challenge("dodeca", [alice, bob]))
        run.dodeca_board = wait_for(lambda: tables.board_of("dodeca", [alice.userid, bob.userid]), ORDINARY_SECONDS)
        run.boards.add(("dodeca", run.dodeca_board))
        new_game(run, rng)
        run.baseline = tables.state()

        threads = [
            threading.Thread(
                target=send_hostile, args=(run, hostile_mails(rng, scale.fuzz_mails, players=run.match.userids))
            ),
            threading.Thread(target=play_ordinary, args=(run, random.Random(rng.random()))),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if not wait_for(lambda: not tables.pending(), 5 if run.blocked else SETTLE_SECONDS, interval=0.5):
            run.unsettled = f"{len(tables.pending())} mail(s) still pending"
        collect_outputs(run)
        record(run, figures)
        yield run
    finally:
        server.stop()
        tables.close()


def collect_outputs(run: FuzzRun) -> None:
    wait_for(lambda: all(row.status != "pending" for row in run.tables.outbox()), 30, interval=0.5)
    run.delivered = maildir_files(run.server.outbox)
    for row in run.tables.outbox():
        run.outputs[f"outgoing mail {row.id} to {row.recipient}"] = row.raw
    run.outputs["the server's log"] = run.server.log().encode()
    if not run.server.alive:
        return
    names = {
        "cephalopod": run.match.board,
        "dodeca": run.dodeca_board,
        "alice": run.players[0].userid,
        "bob": run.players[1].userid,
    }
    for page in PAGES:
        path = page.format(**names)
        run.outputs[f"GET {path}"] = run.server.get(path).content
    for path in calendar_paths(random.Random("calendar"), CALENDARS, players=run.match.userids):
        answer = run.server.get(path)
        run.calendars[path] = answer.status_code
        run.outputs[f"GET {path[:200]}"] = answer.content


def own_seconds(run: FuzzRun) -> list[tuple[float, int]]:
    """Each processed mail's own processing time: from when the worker could take it
    (received, and the previous mail done) to when it was done."""
    rows = sorted((r for r in run.tables.inbound() if r.processed_at), key=lambda r: r.processed_at)
    times, previous = [], None
    for row in rows:
        start = max(row.received_at, previous) if previous else row.received_at
        times.append(((row.processed_at - start).total_seconds(), row.id))
        previous = row.processed_at
    return times


def record(run: FuzzRun, figures) -> None:
    figures.fuzz_mails_tried += len(run.hostile)
    kinds = run.hostile_rows()
    for seconds, row_id in own_seconds(run):
        figures.time_per_mail(seconds, kinds.get(row_id, "an ordinary mail"))
    figures.rss(run.server.memory.peak_rss)


def test_no_hostile_mail_holds_up_an_ordinary_one(fuzz_run):
    assert fuzz_run.blocked == ""
    assert len(fuzz_run.ordinary) > AFTER_HOSTILE


def test_ordinary_mail_is_answered_in_the_order_sent(fuzz_run):
    rows = fuzz_run.tables.inbound_by_message_id()
    order = [rows[mail.message_id][0].processed_at for mail, _, _ in fuzz_run.ordinary if mail.message_id in rows]
    assert order == sorted(order) and len(order) == len(fuzz_run.ordinary)
    answered = {row.inbound_id for row in fuzz_run.tables.outbox()}
    unanswered = [mail.message_id for mail, _, _ in fuzz_run.ordinary if mail.message_id not in rows]
    unanswered += [
        mail.message_id
        for mail, _, _ in fuzz_run.ordinary
        if mail.message_id in rows and rows[mail.message_id][0].id not in answered
    ]
    assert unanswered == []


def test_the_server_keeps_serving_through_hostile_mail(fuzz_run):
    assert fuzz_run.server.memory.runaway == ""
    assert fuzz_run.server.alive, "the server died"
    assert fuzz_run.unhealthy == []
    assert fuzz_run.server.healthz().status_code == 200


def test_every_hostile_mail_is_settled(fuzz_run):
    assert fuzz_run.unsettled == ""
    statuses = {row.status for row in fuzz_run.tables.inbound() if row.id in fuzz_run.hostile_rows()}
    assert statuses <= {"processed", "failed", "ignored", "duplicate"}


def test_hostile_mail_is_accepted_or_refused_for_good(fuzz_run):
    deferred = [
        (kind, answer.code, answer.message[:80])
        for kind, answer in fuzz_run.hostile
        if answer.code < 250 or 400 <= answer.code < 500
    ]
    assert deferred == []


def test_no_mail_takes_long_to_process(fuzz_run):
    kinds = fuzz_run.hostile_rows()
    slow = [
        (round(seconds, 1), kinds.get(row_id, "ordinary"))
        for seconds, row_id in own_seconds(fuzz_run)
        if seconds > MAIL_SECONDS
    ]
    assert slow == []


def test_memory_stays_bounded(fuzz_run):
    assert fuzz_run.server.memory.peak_rss <= MEMORY_BOUND, f"{fuzz_run.server.memory.peak_rss // MIB} MiB"


def test_garbage_changes_no_state(fuzz_run):
    players, addresses, _, _ = fuzz_run.tables.state()
    assert (players, addresses) == fuzz_run.baseline[:2]
    games = {(game_type, board) for game_type, board, *_ in fuzz_run.tables.state()[2]}
    assert games == fuzz_run.boards
    ordinary = fuzz_run.inbound_ids([mail for mail, _, _ in fuzz_run.ordinary])
    assert [m for m in fuzz_run.tables.moves() if m.inbound_id not in ordinary] == []


def test_no_secret_reaches_any_output(fuzz_run):
    secrets = {f"{p.userid}'s password": p.password.encode() for p in fuzz_run.players}
    secrets.update({f"{userid}'s password hash": digest.encode() for userid, digest in fuzz_run.tables.players()})
    secrets["PBM_SECRET_KEY"] = fuzz_run.server.secret_key.encode()
    for token in set(RESET_TOKEN.findall(b"".join(fuzz_run.delivered))):
        secrets[f"password reset token {token.decode()[:10]}..."] = token
    for seed in fuzz_run.tables.game_secrets():
        secrets["a dice seed (hex)"] = seed.hex().encode()
        secrets["a dice seed (base64)"] = base64.b64encode(seed).rstrip(b"=")
        secrets["a dice seed (url-safe base64)"] = base64.urlsafe_b64encode(seed).rstrip(b"=")
    leaks = [
        f"{secret} in {where}"
        for where, text in fuzz_run.outputs.items()
        for secret, value in secrets.items()
        if value in text
    ]
    assert leaks == []
    assert "GET /api/games" in fuzz_run.outputs, "the server died before its pages could be read"


def test_the_log_carries_no_address_or_reply_token(fuzz_run):
    log = fuzz_run.outputs["the server's log"]
    tokens = set()
    outgoing = [raw for where, raw in fuzz_run.outputs.items() if where.startswith("outgoing")]
    for raw in [*outgoing, *fuzz_run.delivered]:
        tokens.update(re.findall(rb"pbm\+([^@>\s]+)@", raw))
    found = [p.address for p in fuzz_run.players if p.address.encode() in log]
    found += [f"reply token {token.decode()}" for token in tokens if token in log]
    assert found == []


def test_commands_with_hostile_arguments_are_refused_not_failed(fuzz_run):
    kinds = fuzz_run.hostile_rows()
    statuses = {(row.status, row.note[:120]) for row in fuzz_run.tables.inbound() if kinds.get(row.id) == NEWER_VERBS}
    assert statuses, "no mail of the newer verbs was stored"
    assert {status for status, _ in statuses} <= {"processed", "ignored"}, statuses


def test_no_reply_carries_a_header_or_part_a_sender_wrote(fuzz_run):
    parser = BytesHeaderParser(policy=compat32)
    for row in fuzz_run.tables.outbox():
        head = row.raw.split(b"\n\n", 1)[0]
        headers = parser.parsebytes(row.raw)
        assert {name.lower() for name in headers.keys()} <= OUR_HEADERS, head
        assert headers.get_content_type() == "text/plain", head
        assert headers.get_all("To") == [row.recipient], head


def test_the_calendar_answers_hostile_userids_without_failing_or_echoing_markup(fuzz_run):
    assert fuzz_run.calendars, "the server died before its calendars could be read"
    assert {path: status for path, status in fuzz_run.calendars.items() if status >= 500} == {}
    echoed = [
        where for where, text in fuzz_run.outputs.items() if where.startswith("GET /players/") and b"<script>" in text
    ]
    assert echoed == []
