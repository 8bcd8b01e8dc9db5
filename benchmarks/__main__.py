"""Run every benchmark with its defaults: ``python -m benchmarks`` (``make bench``).

Each prints numbers; none asserts a time. Run one alone for its options:
``python -m benchmarks.<name> --help``.
"""

import importlib
import sys
import time

BENCHMARKS = [
    "cephalopod_movegen",
    "cubeo_movegen",
    "dodeca_movegen",
    "bot_playouts",
    "bot_turns",
    "mail_reading",
    "compose_mail",
    "smtp_load",
    "move_cost",
    "web_pages",
    "page_flood",
    "records",
    "mailbox",
]


def main() -> int:
    for name in BENCHMARKS:
        print(f"== benchmarks.{name}", flush=True)
        started = time.perf_counter()
        status = importlib.import_module(f"benchmarks.{name}").main([])
        print(f"   ({time.perf_counter() - started:.0f} s)\n", flush=True)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main())
