"""The account handlers (`pbm.commands.accounts`): what each changes, whom it mails, and each
refusal by its code."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select

from pbm.commands import accounts, play, preferences
from pbm.commands.language import CommandError
from pbm.commands.plan import plan_mail
from pbm.facts import Fact
from pbm.store import board_lists, bounces, confirmations, outbox, players, resets
from pbm.store.models import BoardStatus, HoldReason, OutboxMessage
from tests.commands.handlers.conftest import Desk, to


def test_help_mails_the_topic_asked_for_and_refuses_a_topic_there_is_none_on(desk: Desk):
    (mail,) = desk.run(accounts.help_, "help queue", sender="stranger@example.net")
    assert (mail.template, mail.to) == ("help_queue", "stranger@example.net")
    (game,) = desk.run(accounts.help_, "help cubeo", sender="stranger@example.net")
    assert game.template == "game_help" and game.context["game"].name == "cubeo"
    refusal = desk.refusal(accounts.help_, "help chess", sender="stranger@example.net")
    assert refusal.fact.code == "no-help-topic" and refusal.fact["topic"] == "chess"
    assert str(refusal).startswith("There is no help on 'chess'; the topics are: commands, tutorial, ratings")


def test_game_help_and_list_answer_the_sender_alone(desk: Desk):
    (rules,) = desk.run(accounts.game_help, "dodeca help", sender="x@example.net")
    (listed,) = desk.run(accounts.list_games, "list", sender="x@example.net")
    assert (rules.template, rules.to, listed.template, listed.to) == (
        "game_help",
        "x@example.net",
        "list",
        "x@example.net",
    )


def test_signup_makes_a_player_and_asks_each_address_to_confirm_itself(desk: Desk):
    mails = desk.run(accounts.signup, "signup carol carol-pw carol@home.example", sender="carol@work.example")
    assert to(mails) == ["carol@home.example", "carol@work.example"]
    assert mails[0].reply_token is not None and mails[1].reply_token is None
    carol = desk.player("carol")
    assert carol is not None and [a.address for a in carol.addresses] == ["carol@home.example"]


def test_signup_refusals(desk: Desk):
    desk.sign_up("alice")
    assert desk.code(accounts.signup, "signup alice pw-pw-pw", sender="a@x.example") == "userid-taken"
    assert desk.code(accounts.signup, "signup open pw-pw-pw", sender="a@x.example") == "userid-reserved"
    assert desk.code(accounts.signup, "signup carol pw-pw-pw", sender=None) == "signup-no-address"
    assert desk.code(accounts.signup, "signup carol pw", sender="a@x.example") == "password-length"
    desk.limits = desk.limits.__class__(**{**vars(desk.limits), "addresses_per_player": 1})
    assert desk.code(accounts.signup, "signup carol carol-pw a@x.example b@x.example") == "too-many-addresses"


def test_signups_from_one_address_are_limited_a_day(desk: Desk):
    allowed = desk.limits.signups_per_sender_per_day
    for n in range(allowed):
        desk.run(accounts.signup, f"signup user{n} pw-pw-pw", sender="farm@x.example")
    refusal = desk.refusal(accounts.signup, "signup one.more pw-pw-pw", sender="farm@x.example")
    assert refusal.fact.code == "signups-per-address" and refusal.fact["count"] == allowed
    assert refusal.fact["after"] == desk.clock() + accounts.SIGNUP_WINDOW


def test_confirm_address_confirms_from_that_address_alone(desk: Desk):
    (asking,) = desk.run(accounts.signup, "signup carol carol-pw", sender="carol@x.example")
    token = asking.reply_token
    assert (
        desk.code(accounts.confirm_address, _confirming(token), sender="eve@x.example") == "confirmation-from-elsewhere"
    )
    assert desk.code(accounts.confirm_address, _confirming("no-such-token")) == "confirmation-unknown"
    (confirmed,) = desk.run(accounts.confirm_address, _confirming(token), sender="carol@x.example")
    assert confirmed.template == "address_confirmed" and confirmed.context["again"] is False
    carol = desk.player("carol")
    assert desk.read(lambda session: confirmations.has_confirmed_address(session, players.find(session, "carol")))
    assert carol is not None


def _confirming(token: str | None):
    from pbm.commands import language as lang

    return lang.ConfirmAddress(userid="carol", token=token or "")


def test_change_password_needs_the_old_one_and_every_address_hears_of_it(desk: Desk):
    desk.sign_up("alice")
    assert desk.code(accounts.change_password, "change password alice wrong-pw new-pw-1") == "wrong-password"
    assert desk.code(accounts.change_password, "change password nobody x-pw-pw new-pw-1") == "no-such-player"
    mails = desk.run(accounts.change_password, "change password alice alice-pw new-pw-1", sender="alice")
    assert to(mails) == ["alice@example.org"]
    assert desk.code(accounts.change_password, "change password alice alice-pw other-pw") == "wrong-password"
    assert [check.right for check in desk.checks] == [False, True, False]


def test_password_reset_mails_the_player_and_its_reply_sets_a_new_password_once(desk: Desk):
    desk.sign_up("alice")
    mails = desk.run(accounts.ask_password_reset, "password reset alice", sender="mallory@x.example")
    (reset,) = [m for m in mails if m.template == "password_reset"]
    assert reset.to == "alice@example.org" and reset.reply_token
    assert to(mails, "password_reset_asked") == ["mallory@x.example"]
    from pbm.commands import language as lang

    using = lang.ResetPassword(userid="alice", token=reset.reply_token, secret="brand-new-pw")
    assert desk.code(accounts.reset_password, using, sender="mallory@x.example") == "reset-from-elsewhere"
    assert to(desk.run(accounts.reset_password, using, sender="alice")) == ["alice@example.org"]
    assert desk.code(accounts.reset_password, using, sender="alice") == "reset-used"
    assert desk.read(lambda session: resets.find(session, reset.reply_token).used_at) is not None


def test_change_and_add_address(desk: Desk):
    desk.sign_up("alice")
    mails = desk.run(accounts.add_address, "add alice alice-pw alice@work.example", sender="alice")
    assert to(mails) == ["alice@example.org", "alice@work.example"]
    assert desk.code(accounts.add_address, "add alice alice-pw alice@example.org", sender="alice") == (
        "has-addresses-already"
    )
    mails = desk.run(accounts.change_address, "change address alice alice-pw alice@new.example", sender="alice")
    assert sorted(to(mails)) == ["alice@example.org", "alice@new.example", "alice@work.example"]
    alice = desk.player("alice")
    assert alice is not None and [a.address for a in alice.addresses] == ["alice@new.example"]


def _bounced(desk: Desk, address: str) -> None:
    """Mail to `address` stopped after a permanent bounce, and a mail for alice waits for it."""

    def stop(session):
        alice = players.find(session, "alice")
        queued = outbox.Queued(address, f"<held.{address}>", b"", "board", hold=outbox.Hold(HoldReason.BOUNCED, None))
        outbox.enqueue(session, [replace(queued, player_id=alice.id)], now=desk.clock())
        session.flush()
        row = session.scalars(select(OutboxMessage).where(OutboxMessage.recipient == address)).one()
        bounces.record(session, row, permanent=True, status="5.1.1", now=desk.clock())

    desk.read(stop)


def _still_stopped(desk: Desk, address: str) -> bool:
    return bool(desk.read(lambda session: bounces.stopped(session, [address])))


def test_naming_an_address_whose_mail_bounced_in_add_makes_it_work_again(desk: Desk):
    desk.limits = replace(desk.limits, confirmations_per_address_per_day=2)  # the second add asks work@ again
    desk.sign_up("alice")
    desk.run(accounts.add_address, "add alice alice-pw alice@work.example", sender="alice")
    _bounced(desk, "alice@work.example")
    # Named again though alice has it: not refused, since it did something.
    mails = desk.run(accounts.add_address, "add alice alice-pw alice@work.example", sender="alice")
    assert not _still_stopped(desk, "alice@work.example")
    assert {m.context["resumed"] == ["alice@work.example"] for m in mails} == {True}
    released = desk.read(lambda session: session.scalars(select(OutboxMessage.release_at)).all())
    assert released == [desk.clock()]  # what waited goes with the next time pass


def test_naming_an_address_whose_mail_bounced_in_change_address_makes_it_work_again(desk: Desk):
    desk.sign_up("alice")
    _bounced(desk, "alice@example.org")
    mails = desk.run(accounts.change_address, "change address alice alice-pw ALICE@example.org", sender="alice")
    assert not _still_stopped(desk, "alice@example.org")
    assert mails[0].context["resumed"] == ["ALICE@example.org"]
    mails = desk.run(accounts.change_address, "change address alice alice-pw alice@example.org", sender="alice")
    assert mails[0].context["resumed"] == []  # working already


def test_confirmation_requests_to_one_address_are_limited_a_day(desk: Desk):
    desk.sign_up("alice")
    for _ in range(desk.limits.confirmations_per_address_per_day):
        desk.run(accounts.add_address, "add alice alice-pw pest@x.example", sender="alice")
    refusal = desk.refusal(accounts.add_address, "add alice alice-pw pest@x.example", sender="alice")
    assert refusal.fact.code == "confirmations-per-address" and refusal.fact["address"] == "pest@x.example"


def test_all_games_lists_a_players_games_and_refuses_a_player_there_is_not(desk: Desk):
    desk.sign_up("alice", "bob")
    desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    (mail,) = desk.run(accounts.all_games, "all show alice")
    assert [game.board for game in mail.context["games"]] == [101]
    refusal = desk.refusal(accounts.all_games, "all show nobody")
    assert (refusal.fact.code, refusal.fact["userids"]) == ("no-player-signed-up", "nobody")


def test_signoff_forfeits_the_games_played_and_keeps_the_userid(desk: Desk):
    desk.sign_up("alice", "bob")
    desk.run(play.challenge, "cephalopod challenge alice bob", sender="alice")
    desk.run(play.move, "cephalopod move 101 alice alice-pw a1", sender="alice")
    desk.run(play.move, "cephalopod move 101 bob bob-pw a2", sender="bob")
    mails = desk.run(accounts.signoff, "signoff alice alice-pw", sender="alice")
    (goodbye,) = [m for m in mails if m.template == "signoff"]
    assert [(g.title, g.board) for g in goodbye.context["forfeited"]] == [("Cephalopod", 101)]
    assert desk.board("cephalopod", 101).row.status == BoardStatus.FINISHED
    assert desk.read(lambda session: players.find(session, "alice").active) is False
    assert desk.code(accounts.signup, "signup alice pw-pw-pw", sender="a@x.example") == "userid-taken"
    assert desk.read(lambda session: board_lists.playing(session, players.find(session, "bob").id)) == []


def test_signoff_drops_what_waited_for_a_digest_and_keeps_what_waits_for_another_reason(desk: Desk):
    """No digest goes to a player who left, so what waited for one never goes, and says why; an
    answer they asked for that the hourly limit holds back still goes when the hour has room."""
    desk.sign_up("alice")
    desk.run(preferences.digest, "digest alice alice-pw 07:30", sender="alice")

    def hold(session):
        alice = players.find(session, "alice")
        later = desk.clock() + timedelta(minutes=30)
        held = [
            outbox.Queued("alice@example.org", "<a@x>", b"", "board", hold=outbox.Hold(HoldReason.DIGEST, None)),
            outbox.Queued("alice@example.org", "<b@x>", b"", "show", hold=outbox.Hold(HoldReason.HOURLY_LIMIT, later)),
        ]
        outbox.enqueue(session, [replace(q, player_id=alice.id) for q in held], now=desk.clock())

    desk.read(hold)
    desk.run(accounts.signoff, "signoff alice alice-pw", sender="alice")
    rows = desk.read(
        lambda session: session.execute(
            select(OutboxMessage.kind, OutboxMessage.status, OutboxMessage.last_error).order_by(OutboxMessage.id)
        ).all()
    )
    assert [tuple(row) for row in rows] == [("board", "suppressed", outbox.SIGNED_OFF), ("show", "held", "")]
    assert desk.player("alice").digest_due_at is None


def test_a_wrong_password_waits_after_too_many(desk: Desk):
    desk.sign_up("alice")
    desk.clock.advance(minutes=1)
    from pbm.store import players as store

    with desk.database.transaction() as session:
        alice = store.find(session, "alice")
        for _ in range(desk.limits.failed_passwords):
            store.note_password_check(
                session,
                alice.id,
                "alice@example.org",
                right=False,
                now=desk.clock(),
                allowed=desk.limits.failed_passwords,
            )
    refusal = desk.refusal(accounts.change_password, "change password alice alice-pw x-pw-pw-1", sender="alice")
    assert refusal.fact.code == "password-wait-own" and refusal.fact["until"] > desk.clock()
    assert desk.clock() + timedelta(days=2) > refusal.fact["until"]


def test_language_sets_the_players_language_and_answers_in_it(desk: Desk):
    desk.sign_up("alice")
    mails = desk.run(accounts.choose_language, "language alice alice-pw Français", sender="alice")
    assert [(m.template, m.to, m.language) for m in mails] == [("language", "alice@example.org", "fr")]
    alice = desk.player("alice")
    assert alice is not None and alice.language == "fr"
    (back,) = desk.run(accounts.choose_language, "language alice alice-pw en", sender="alice")
    assert back.language == "en" and desk.player("alice").language == "en"


def test_language_refuses_a_wrong_password_and_a_language_the_server_does_not_speak(desk: Desk):
    desk.sign_up("alice")
    assert desk.code(accounts.choose_language, "language alice wrong-pw fr", sender="alice") == "wrong-password"
    assert desk.player("alice").language is None
    (error,) = plan_mail("", "language alice alice-pw klingon", max_commands=1).steps
    assert isinstance(error, CommandError)
    assert error.fact == Fact("not-a-language", word="klingon", known=["en", "fr"])
