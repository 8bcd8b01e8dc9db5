"""A small club of players for end-to-end tests: their addresses, signing them up, and
picking out the mail each of them got."""

from __future__ import annotations

from email.message import EmailMessage

from tests.support import mail

ADDRESSES = {
    "alice": "alice@example.org",
    "bob": "bob@example.net",
    "carol": "carol@example.com",
    "dave": "dave@example.com",
}


def send(server, userid: str, text: str) -> None:
    """`userid` mails the server `text` from their registered address."""
    server.send(mail(ADDRESSES[userid], text), ADDRESSES[userid])


def signed_up(server, sink, *userids: str) -> None:
    """Sign up `userids`, each with the password ``USERID-pw``, and take the welcome mails."""
    for userid in userids:
        send(server, userid, f"signup {userid} {userid}-pw")
    sink.wait(len(userids))


def to(messages: list[EmailMessage], userid: str) -> EmailMessage:
    """The one mail of `messages` addressed to `userid`."""
    (message,) = [m for m in messages if m["To"].addresses[0].addr_spec == ADDRESSES[userid]]
    return message
