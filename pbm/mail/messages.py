"""The mail layer's words: every fact the mail pipeline tells a sender (a mail it could not
read, a mail it held, a reply that reached the plain address), in English."""

from __future__ import annotations

from pbm.facts import Catalogue

MESSAGES: Catalogue = {}
