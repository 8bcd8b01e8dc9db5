"""Parse functions that misbehave on request, for MailReader's tests.

A reader's child imports its parse function by name, so these live in a module of
their own.  Each reads a mail as parse_mail does unless the mail asks otherwise.
"""

import os
import signal
import sys
import time

from pbm.mail.parse import ParsedMail, parse_mail


def loops_on_request(raw: bytes, **arguments) -> ParsedMail:
    while b"loop forever" in raw:
        pass
    return parse_mail(raw, **arguments)


def sleeps_on_request(raw: bytes, **arguments) -> ParsedMail:
    # Sleeping takes no CPU time: only the parent's wall clock can stop it.
    if b"sleep forever" in raw:
        time.sleep(3600)
    return parse_mail(raw, **arguments)


def hoards_on_request(raw: bytes, **arguments) -> ParsedMail:
    if b"hoard memory" in raw:
        hoard = bytearray(256 * 1024 * 1024)
        del hoard
    return parse_mail(raw, **arguments)


def dies_on_request(raw: bytes, **arguments) -> ParsedMail:
    if b"die now" in raw:
        os.kill(os.getpid(), signal.SIGKILL)
    return parse_mail(raw, **arguments)


def chatters(raw: bytes, **arguments) -> ParsedMail:
    # What a library might print about a hostile mail.
    print("chatter on standard output")
    print("chatter on standard error", file=sys.stderr)
    return parse_mail(raw, **arguments)
