"""A bare aiosmtpd server that accepts every mail and drops it: the baseline of `smtp_load`.

    python -m benchmarks.smtp_sink PORT

It runs in a process of its own, as ``pbm serve`` does, so that it and the
clients sending to it do not share one interpreter: a sink in the clients'
process would be slowed by them, and make the server look better beside it.
It serves until it is stopped.
"""

from __future__ import annotations

import signal
import sys

from aiosmtpd.controller import Controller


class DropHandler:
    async def handle_DATA(self, server: object, session: object, envelope: object) -> str:
        return "250 OK"


def main(argv: list[str] | None = None) -> int:
    (port,) = argv if argv is not None else sys.argv[1:]
    stop = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop)  # before the server's thread starts: it inherits the mask
    sink = Controller(DropHandler(), hostname="127.0.0.1", port=int(port))
    sink.start()
    try:
        signal.sigwait(stop)
    finally:
        sink.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
