"""The host that sent a mail: the SMTP client, or the client our own MTA wrote on top of the trace."""

from __future__ import annotations

import pytest

from pbm.mail.sending_host import HEAD_BYTES, sending_host

OURS = b"Received: from client.example (client.example [203.0.113.5])\r\n\tby mx.games.test (Postfix) with ESMTP\r\n"
FORGED = b"Received: from nowhere ([192.0.2.77]) by mx.forged.example\r\n"
BODY = b"Subject: signup\r\n\r\nsignup alice alice-pw\r\n"


def test_a_client_on_another_machine_is_the_sending_host_whatever_the_trace_says():
    assert sending_host("198.51.100.7", FORGED + BODY) == "198.51.100.7"


@pytest.mark.parametrize("peer", ["127.0.0.1", "::1", "pbm process", ""])
def test_behind_our_own_mta_the_host_is_the_client_it_wrote_on_top(peer):
    assert sending_host(peer, OURS + FORGED + BODY) == "203.0.113.5"


def test_an_ipv6_host_counts_by_its_64():
    trace = b"Received: from a (a [IPv6:2001:db8:aa:bb:1:2:3:4]) by us\r\n"
    assert sending_host("127.0.0.1", trace + BODY) == "2001:db8:aa:bb::/64"
    assert sending_host("2001:db8:aa:bb:ffff::1", BODY) == "2001:db8:aa:bb::/64"


@pytest.mark.parametrize(
    "head",
    [
        b"",  # no trace at all
        b"Received: from client.example by mx.games.test\r\n",  # no address written
        b"Received: from x ([999.1.1.1]) by us\r\n",  # not an address
        b"Received: from x by us ([203.0.113.5])\r\n",  # an address, but not the client's
        b"X-Padding: " + b"x" * HEAD_BYTES + b"\r\n" + OURS,  # past what is looked at
    ],
)
def test_where_the_trace_names_no_client_the_host_is_unknown(head):
    assert sending_host("127.0.0.1", head + BODY) is None


def test_only_the_header_block_is_read():
    assert sending_host("127.0.0.1", BODY + OURS) is None
