"""On SQLite, storing a received mail never waits behind a queue of processing."""

import threading
import time

from pbm.store.database import WriteGate


def test_an_urgent_writer_goes_before_background_writers_already_waiting():
    gate, order = WriteGate(), []
    holding = threading.Event()

    def writer(name: str, urgent: bool) -> None:
        with gate.enter(urgent=urgent):
            order.append(name)

    with gate.enter(urgent=False):
        holding.set()
        background = [threading.Thread(target=writer, args=(f"process {i}", False)) for i in range(3)]
        for thread in background:
            thread.start()
        time.sleep(0.05)
        urgent = threading.Thread(target=writer, args=("store mail", True))
        urgent.start()
        time.sleep(0.05)
    for thread in [*background, urgent]:
        thread.join(5)
    assert order[0] == "store mail"
    assert sorted(order[1:]) == ["process 0", "process 1", "process 2"]


def test_writers_never_overlap():
    gate, inside, overlaps = WriteGate(), [], []

    def writer(urgent: bool) -> None:
        for _ in range(50):
            with gate.enter(urgent=urgent):
                inside.append(1)
                if len(inside) > 1:
                    overlaps.append(1)
                inside.pop()

    threads = [threading.Thread(target=writer, args=(i % 2 == 0,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert overlaps == []
