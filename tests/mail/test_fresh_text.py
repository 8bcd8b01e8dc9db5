"""fresh_text: only what the sender wrote in this mail."""

import pytest

from pbm.mail.fresh import fresh_text
from tests.mail.builders import BOARD, fixture, message, parse, quoted

BOARD_LINE = "    5  ... (1) ... ... ...  5"


# ---------------------------------------------------------------- real client replies


def test_gmail_reply_keeps_the_move_and_comment_above_a_wrapped_attribution():
    assert (
        fresh_text(parse(fixture("gmail_reply.eml")).body) == "c3=b3+c2\n\nNice capture last time!"
    )


def test_outlook_reply_stops_at_the_header_block():
    assert fresh_text(parse(fixture("outlook_reply.eml")).body) == "roll c2"


def test_apple_mail_reply_stops_at_the_phone_trailer_and_quoted_attribution():
    assert fresh_text(parse(fixture("apple_mail_reply.eml")).body) == "c3=b3+c2"


def test_thunderbird_reply_stops_at_the_attribution():
    body = parse(fixture("thunderbird_reply.eml")).body
    assert fresh_text(body) == "1,0,0->1,-1\nmy second move this week"


def test_thunderbird_bottom_posted_reply_takes_the_text_below_the_quote():
    body = parse(fixture("thunderbird_bottom_reply.eml")).body
    assert fresh_text(body) == "+-1,0\n\nSchöner Zug!"


@pytest.mark.parametrize(
    "name",
    [
        "gmail_reply.eml",
        "outlook_reply.eml",
        "apple_mail_reply.eml",
        "thunderbird_reply.eml",
        "thunderbird_bottom_reply.eml",
        "html_only_gmail.eml",
        "html_only_outlook.eml",
    ],
)
def test_the_quoted_board_never_counts_as_fresh_text(name):
    fresh = fresh_text(parse(fixture(name)).body)
    assert "..." not in fresh
    assert "Summary of" not in fresh


# ---------------------------------------------------------------- reply headers


@pytest.mark.parametrize(
    "attribution",
    [
        "On Mon, 1 Jan 2024, Bob <bob@example.com> wrote:",
        "On Mon, Jan 1, 2024 at 10:00\u202fAM Bob Smith <\nbob@example.com> wrote:",
        "On Mon, Jan 1, 2024 at 10:00 AM Cephalopod Server\n<pbm@example.org> wrote:",
        "On 01/01/2024 10:00, Cephalopod Server wrote:",
        "On 1 Jan 2024, at 10:00, Bob <bob@example.com> wrote:",
        "Bob Smith <bob@example.com> wrote:",
        "Le lun. 1 janv. 2024 à 10:00, Bob <bob@example.com> a écrit :",
        "Le 01/01/2024 à 10:00, Cephalopod Server a écrit\u00a0:",
        "Am 01.01.24 um 10:00 schrieb Cephalopod Server:",
        "Am Mo., 1. Jan. 2024 um 10:00 Uhr schrieb Bob <bob@example.com>:",
        "El lun, 1 ene 2024 a las 10:00, Bob (<bob@example.com>) escribió:",
        "Op ma 1 jan. 2024 om 10:00 schreef Bob <bob@example.com>:",
    ],
)
def test_attribution_and_everything_after_it_are_dropped(attribution):
    body = f"c3=b3+c2\n\n{attribution}\n\n{quoted(BOARD)}"
    assert fresh_text(body) == "c3=b3+c2"


def test_attribution_without_quotes_below_still_ends_the_fresh_text():
    body = "c3=b3+c2\n\nOn Mon, 1 Jan 2024, Bob <bob@example.com> wrote:\n\n" + BOARD
    assert fresh_text(body) == "c3=b3+c2"


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "----- Original Message -----",
        "-------- Original Message --------",
        "---------- Forwarded message ---------",
        "-------- Forwarded Message --------",
        "-----Ursprüngliche Nachricht-----",
        "-------- Message d'origine --------",
        "Begin forwarded message:",
    ],
)
def test_original_message_separator_and_everything_after_it_are_dropped(separator):
    body = f"roll c2\n\n{separator}\nFrom: pbm@example.org\n\n{BOARD}"
    assert fresh_text(body) == "roll c2"


@pytest.mark.parametrize(
    "block",
    [
        "From: Cephalopod Server <pbm@example.org>\nSent: Monday, January 1, 2024 10:00 AM\n"
        "To: Bob\nSubject: x",
        "*From:* Cephalopod Server <pbm@example.org>\n*Sent:* Monday, January 1, 2024 10:00 AM",
        "From: pbm@example.org\nDate: Mon, 1 Jan 2024 10:00:00 +0000",
        "Von: Cephalopod Server <pbm@example.org>\nGesendet: Montag, 1. Januar 2024 10:00\nAn: Bob",
        "De : Cephalopod Server <pbm@example.org>\nEnvoyé : lundi 1 janvier 2024 10:00\nÀ : Bob",
    ],
)
def test_outlook_header_block_and_everything_after_it_are_dropped(block):
    body = f"roll c2\n\n{block}\n\n{BOARD}"
    assert fresh_text(body) == "roll c2"


def test_outlook_web_html_reply_with_a_rule_above_the_header_block():
    markup = (
        b'<div>roll c2</div><hr style="display:inline-block;width:98%">'
        b'<div id="divRplyFwdMsg"><b>From:</b> Cephalopod Server &lt;pbm@example.org&gt;<br>'
        b"<b>Sent:</b> Tuesday, January 2, 2024 10:55<br><b>To:</b> Ivan</div>"
        b"<div>Summary of Cephalopod Board 104</div>"
    )
    mail = parse(message(markup, content_type="text/html; charset=utf-8"))
    assert fresh_text(mail.body) == "roll c2"


def test_outlook_underscore_line_ends_the_fresh_text():
    assert fresh_text("roll c2\n________________________________\nanything") == "roll c2"


def test_a_from_line_alone_is_ordinary_text():
    assert (
        fresh_text("c3=b3+c2\nFrom: my phone, sorry for typos")
        == "c3=b3+c2\nFrom: my phone, sorry for typos"
    )


def test_a_line_starting_with_on_is_ordinary_text():
    body = "On my turn I play c3=b3+c2\nOn second thoughts, no"
    assert fresh_text(body) == body


def test_wrote_without_a_quote_below_is_ordinary_text():
    body = "As you wrote:\nc3=b3+c2"
    assert fresh_text(body) == body


# ---------------------------------------------------------------- quotes


def test_quoted_lines_and_everything_after_them_are_dropped():
    assert fresh_text("c3=b3+c2\n> quoted\nmore\n") == "c3=b3+c2"


@pytest.mark.parametrize("prefix", ["> ", ">", ">> ", "> > ", "  > ", "\t> ", "\u00a0> "])
def test_quotes_are_recognised_at_any_depth_and_indent(prefix):
    assert fresh_text(f"roll c2\n{prefix}{BOARD_LINE}\n") == "roll c2"


def test_quoted_board_lines_are_never_fresh():
    body = "c3=b3+c2\n\n" + quoted(BOARD)
    assert fresh_text(body) == "c3=b3+c2"


def test_only_quotes_give_empty_fresh_text():
    assert fresh_text(quoted(BOARD)) == ""


def test_quoted_attribution_is_a_quote():
    assert fresh_text("c3=b3+c2\n\n> On Mon, Bob wrote:\n> hi\n") == "c3=b3+c2"


def test_bottom_posted_move_below_the_quote_is_fresh():
    body = (
        "On Mon, 1 Jan 2024, Bob <bob@example.com> wrote:\n"
        + quoted(BOARD)
        + "\nc3=b3+c2\n\n-- \nAlice\n"
    )
    assert fresh_text(body) == "c3=b3+c2"


def test_bottom_posted_move_below_a_wrapped_attribution_is_fresh():
    body = (
        "On Mon, Jan 1, 2024 at 10:00 AM Bob Smith <\nbob@example.com> wrote:\n"
        + quoted(BOARD)
        + "\nroll c2\n"
    )
    assert fresh_text(body) == "roll c2"


def test_bottom_posted_reply_without_attribution_is_fresh():
    assert fresh_text("\n" + quoted(BOARD) + "\nshow\n") == "show"


def test_inline_reply_keeps_only_the_first_answer():
    assert fresh_text("> Do you accept the draw?\nno\n> Really?\nyes\n") == "no"


def test_empty_bottom_posted_reply_is_empty():
    assert fresh_text("On Mon, Bob wrote:\n" + quoted(BOARD) + "\n-- \nAlice\n") == ""


def test_top_posted_reply_ignores_text_below_the_quote():
    assert fresh_text("c3=b3+c2\n> board\nstray wrapped fragment\n") == "c3=b3+c2"


# ---------------------------------------------------------------- commands stay whole


@pytest.mark.parametrize(
    "line",
    [
        "c3=b3+c2",
        "roll c2",
        "1,0,0->1,-1",
        "+-1,0",
        "-1,0",
        "- 1,0",
        "+1,0",
        "=b3",
        "a1->b2",
        "--1,0",
        "-- c3",
        "cephalopod move 101 alice secret c3=b3+c2",
        "show 101#4",
        "** c3 **",
    ],
)
def test_command_on_the_first_line_is_kept_exactly(line):
    assert fresh_text(f"{line}\n\n{quoted(BOARD)}") == line
    assert fresh_text(f"{line}\nsecond line\n") == f"{line}\nsecond line"


def test_lines_beginning_with_plus_or_minus_are_not_signatures_or_bullets():
    body = "+-1,0\n-1,0\n- 1,0\n+ 1,0"
    assert fresh_text(body) == body


def test_greeting_above_the_move_stays():
    assert fresh_text("Hi,\n\nc3\n") == "Hi,\n\nc3"


def test_polite_closing_is_not_taken_for_a_signature():
    body = "c3=b3+c2\n\nThanks, good game\nBest regards,\nAlice"
    assert fresh_text(body) == body


# ---------------------------------------------------------------- signatures


@pytest.mark.parametrize("delimiter", ["-- ", "--", "__________", "  --  "])
def test_signature_is_dropped(delimiter):
    assert (
        fresh_text(f"c3=b3+c2\n{delimiter}\nAlice Smith\nhttps://alice.example.com\n") == "c3=b3+c2"
    )


@pytest.mark.parametrize(
    "trailer",
    [
        "Sent from my iPhone",
        "Sent from my Galaxy",
        "Get Outlook for iOS",
        "Get Outlook for Android",
        "Envoyé de mon iPhone",
        "Von meinem iPhone gesendet",
        "Sent from Mail for Windows",
    ],
)
def test_mobile_trailer_is_dropped(trailer):
    assert fresh_text(f"roll c2\n\n{trailer}\n") == "roll c2"


def test_short_dash_line_is_ordinary_text():
    assert fresh_text("c3=b3+c2\n---\nnotes") == "c3=b3+c2\n---\nnotes"


# ---------------------------------------------------------------- shape of the result


def test_leading_text_is_kept_exactly():
    assert fresh_text("\n  roll c2  \n\tshow\n") == "\n  roll c2  \n\tshow"


def test_trailing_blank_lines_are_dropped():
    assert fresh_text("roll c2\n\n \n\t\n") == "roll c2"


def test_crlf_is_accepted():
    assert fresh_text("c3=b3+c2\r\n\r\n> board\r\n") == "c3=b3+c2"


def test_empty_body_gives_empty_text():
    assert fresh_text("") == ""


def test_a_sentence_about_a_phone_with_a_move_is_not_a_trailer():
    body = "Sent from my phone: c3=b3+c2"
    assert fresh_text(body) == body
