"""What every ParsedMail must be, whatever mail it was read from."""

import json
import re

from pbm.addresses import mail_address
from pbm.mail.headers import message_id, message_ids
from pbm.mail.limits import MailLimits
from pbm.mail.parse import ParsedMail

# Control characters (C0, DEL, C1), Unicode line and paragraph separators, lone surrogates.
NOT_IN_A_LINE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
NOT_IN_THE_BODY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")


DEFAULT_LIMITS = MailLimits()


def assert_clean(mail: ParsedMail, limits: MailLimits = DEFAULT_LIMITS) -> None:
    """No field can break a reply, a database column or a log line, and each is bounded."""
    assert isinstance(mail, ParsedMail)
    assert not NOT_IN_THE_BODY.search(mail.body)
    assert not mail.body.startswith("\ufeff")
    assert len(mail.body) <= limits.max_body_chars
    assert len(mail.subject) <= limits.max_subject_chars
    one_line = [mail.subject, mail.auto_reason or "", mail.unreadable or "", *mail.notes]
    assert not any(NOT_IN_A_LINE.search(text) for text in one_line)
    assert all(note for note in mail.notes)
    for token in (mail.message_id,):
        assert token is None or message_id(token) == token
    assert message_ids(" ".join(mail.references)) == mail.references
    assert mail.from_address is None or mail_address(mail.from_address) == mail.from_address
    stored = json.dumps(mail.to_json(), ensure_ascii=False).encode("utf-8")
    assert ParsedMail.from_json(json.loads(stored)) == mail
