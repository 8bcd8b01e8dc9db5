"""Who a worker is, and whether another one is gone.

Workers claim rows (mail being read, replies being sent) for a short lease
and name themselves in the claim. A claim whose worker is known to be dead is
ended at once; one whose worker may be alive (on another host, or not known
here) is waited out: a lease ends by itself.
"""

from __future__ import annotations

import functools
import os
import secrets
import socket
from dataclasses import dataclass


@dataclass(frozen=True)
class Worker:
    """Who holds a claim: ``host:pid:nonce``, so a worker can tell a dead one's claims.

    The host part names the process's pid namespace too (``name~inode`` on Linux): two
    containers may share a host name yet not see each other's processes, and a pid one
    of them cannot see is not a dead worker.
    """

    name: str

    @classmethod
    def here(cls) -> Worker:
        """This process. Everything in it that claims rows claims them under one name: two
        names with one pid would each take the other for an earlier process, gone."""
        return _process(os.getpid())

    def outlived(self, claim: str) -> bool:
        """Whether the worker that made `claim` is known to be gone: a process on this host that died.

        Claims of other hosts end with their lease.
        """
        host, _, rest = claim.partition(":")
        pid_text, _, _nonce = rest.partition(":")
        mine_host, _, mine_rest = self.name.partition(":")
        if host != mine_host or not pid_text.isdecimal():
            return False
        pid = int(pid_text)
        if pid == int(mine_rest.partition(":")[0]):
            return claim != self.name  # an earlier process with our pid: it is gone
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except PermissionError:
            return False
        return False


@functools.cache
def _process(pid: int) -> Worker:
    """The worker that process `pid` is (by pid: a forked child is a worker of its own)."""
    return Worker(f"{socket.gethostname()}{_pid_namespace()}:{pid}:{secrets.token_hex(4)}")


def _pid_namespace() -> str:
    """``~<inode>`` of this process's pid namespace, or nothing where there is no such thing."""
    try:
        return f"~{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return ""
