"""pbm: a play-by-email board-game server in the style of the classic PBeM Server."""

__version__ = "0.1.0"
