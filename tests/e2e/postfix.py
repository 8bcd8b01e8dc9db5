"""A private Postfix instance for tests, configured from deploy/postfix/ as deploy/postfix.md says.

The instance has its own configuration, queue, data and mail folders in one temporary
folder, listens on one free loopback port and is stopped at the end: it never touches
a system Postfix. Everything about pbm comes from the files in deploy/postfix/, with the
test's values in place of their @PLACEHOLDERS@ and applied with the commands the doc
gives (postconf -e, postmap, appending to master.cf); `PrivatePostfix.create` adds
only what a throwaway instance needs beyond them, each with its reason.
"""

from __future__ import annotations

import email
import json
import os
import pwd
import re
import shutil
import smtplib
import socket
import subprocess
import sys
import sysconfig
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

from sqlalchemy.engine import make_url

from tests.e2e.conftest import free_port

REPOSITORY = Path(__file__).resolve().parents[2]
DEPLOY = REPOSITORY / "deploy" / "postfix"
PLACEHOLDER = re.compile(r"@([A-Z][A-Z_]*)@")
SBIN = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
# The master.cf that Debian's package installs as /etc/postfix/master.cf: the test
# instance starts from it, as a host's Postfix does, instead of from a copy of its own.
DEBIAN_MASTER_CF = Path("/usr/share/postfix/master.cf.dist")
OPENSSL = "/usr/bin/openssl"  # where dknewkey runs it from


def unavailable() -> str | None:
    """Why a private Postfix instance cannot run here, or None when it can."""
    if shutil.which("postfix", path=SBIN) is None:
        return "Postfix is not installed (Debian: apt-get install postfix; .ci/run installs it)"
    if not DEBIAN_MASTER_CF.exists():
        return f"not Debian's Postfix: no {DEBIAN_MASTER_CF} to start the test instance from"
    if os.geteuid() != 0:
        return "a private Postfix instance must be started by root (its daemons drop to the postfix user)"
    return None


def render(name: str, values: dict[str, str]) -> str:
    """deploy/postfix/NAME with the given values in place of its @PLACEHOLDERS@, as the doc's `render` does."""
    text = (DEPLOY / name).read_text()
    missing = sorted(set(PLACEHOLDER.findall(text)) - values.keys())
    assert not missing, f"deploy/postfix/{name} has placeholders the test gives no value: {missing}"
    return PLACEHOLDER.sub(lambda match: values[match.group(1)], text)


def settings_of(main_cf: str) -> list[str]:
    """The `name = value` lines of a main.cf snippet, as the doc feeds them to `postconf -e`."""
    return [line for line in main_cf.splitlines() if line.strip() and not line.lstrip().startswith("#")]


class Mailbox:
    """A player's Maildir, filled by Postfix's virtual(8) delivery agent."""

    def __init__(self, path: Path, log: Callable[[], str]) -> None:
        self.path = path
        self._log = log
        self._taken: set[str] = set()

    def wait(self, count: int, timeout: float = 30.0) -> list[EmailMessage]:
        """The next `count` mails to arrive here (waiting for them), oldest first."""
        return [_read(raw) for raw in self.wait_raw(count, timeout)]

    def wait_raw(self, count: int, timeout: float = 30.0) -> list[bytes]:
        """The next `count` mails to arrive here, as delivered, byte for byte (`wait`)."""
        deadline = time.monotonic() + timeout
        while True:
            fresh = sorted(self._arrived() - self._taken, key=_delivery_order)
            if len(fresh) >= count:
                break
            if time.monotonic() > deadline:
                got = len(fresh)
                raise AssertionError(f"{self.path.name}: expected {count} more mails, {got} arrived:\n{self._log()}")
            time.sleep(0.05)
        taken = fresh[:count]
        self._taken.update(taken)
        return [(self.path / "new" / name).read_bytes() for name in taken]

    def _arrived(self) -> set[str]:
        new = self.path / "new"
        return set(os.listdir(new)) if new.is_dir() else set()


def _delivery_order(name: str) -> tuple[int, int]:
    # virtual(8) names each file SECONDS.V<dev>I<inode>M<microseconds>.<host>
    match = re.match(r"(\d+)\.\w*?M(\d+)", name)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _read(raw: bytes) -> EmailMessage:
    return email.message_from_bytes(raw, policy=default_policy)  # type: ignore[return-value]


class PrivatePostfix:
    """Debian's Postfix, as an instance of the test's own under `root`.

    Players live in a virtual mailbox domain: Postfix delivers their mail into
    Maildirs under `root/mail`, owned by `mail_user`.
    """

    PLAYERS_DOMAIN = "players.test"

    def __init__(self, root: Path, mail_user: str = "nobody") -> None:
        self.root = root
        self.config = root / "config"
        self.port = free_port()
        self.mail_user = pwd.getpwnam(mail_user)
        self.log_file = root / "maillog"
        self._started = False

    def create(self, players: list[str]) -> None:
        """Write the instance's own main.cf and master.cf: only what a test instance needs."""
        for folder in (self.config, self.root / "queue", self.root / "mail"):
            folder.mkdir(parents=True)
        os.chown(self.root / "mail", self.mail_user.pw_uid, self.mail_user.pw_gid)
        mailboxes = ", ".join(f"{address}={self._mailbox_path(address)}/" for address in players)
        (self.config / "main.cf").write_text(
            "\n".join(
                [
                    "compatibility_level = 3.6",
                    # Its own queue and data: never the system instance's.
                    f"queue_directory = {self.root / 'queue'}",
                    f"data_directory = {self.root / 'data'}",
                    # Loopback only, on the port of the smtpd service below.
                    "inet_interfaces = 127.0.0.1",
                    "inet_protocols = ipv4",
                    # A name of its own, not one guessed from the machine's.
                    "myhostname = postfix.test",
                    "mydestination =",
                    "alias_maps =",
                    "alias_database =",
                    # Nothing leaves this instance but for pbm and the players' mailboxes.
                    "default_transport = error:5.7.1 this test instance delivers nowhere else",
                    f"virtual_mailbox_domains = {self.PLAYERS_DOMAIN}",
                    f"virtual_mailbox_base = {self.root / 'mail'}",
                    f"virtual_mailbox_maps = inline:{{ {mailboxes} }}",
                    f"virtual_uid_maps = static:{self.mail_user.pw_uid}",
                    f"virtual_gid_maps = static:{self.mail_user.pw_gid}",
                    # Its log in its own folder, to show when a test fails.
                    f"maillog_file_prefixes = {self.root}",
                    f"maillog_file = {self.log_file}",
                    "",
                ]
            )
        )
        shutil.copy(DEBIAN_MASTER_CF, self.config / "master.cf")
        self._date_back_the_configuration()
        # No chroot: the temporary queue folder has none of the files a chroot needs.
        self._postconf("-F", "*/*/chroot = n")
        # smtpd on the test's own port instead of port 25.
        self._postconf("-M#", "smtp/inet")
        service = f"127.0.0.1:{self.port}"
        self._postconf("-Me", f"{service}/inet = {service} inet n - n - - smtpd")

    def _mailbox_path(self, address: str) -> str:
        local, _, domain = address.partition("@")
        return f"{domain}/{local}"

    # The doc's steps, on this instance (`-c` names its configuration folder).

    def apply_main_cf(self, snippet: str) -> None:
        self._postconf("-e", *settings_of(snippet))

    def install_map(self, name: str, text: str) -> None:
        (self.config / name).write_text(text)
        self._run("postmap", "-c", str(self.config), str(self.config / name))
        self._date_back_the_configuration()

    def append_master_cf(self, snippet: str) -> None:
        with (self.config / "master.cf").open("a") as master_cf:
            master_cf.write("\n" + snippet)
        self._date_back_the_configuration()

    def start(self) -> None:
        self._run("postfix", "-c", str(self.config), "start")
        self._started = True
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            try:
                with smtplib.SMTP("127.0.0.1", self.port, timeout=5):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"the private Postfix does not answer on {self.port}:\n{self.log()}")

    def stop(self) -> None:
        if self._started:
            self._run("postfix", "-c", str(self.config), "stop")
            self._started = False

    # What a test does with it.

    def send(self, raw: bytes, sender: str, recipients: list[str]) -> None:
        """Inject a mail as a player's mail server would, through the instance's smtpd."""
        with smtplib.SMTP("127.0.0.1", self.port, timeout=30) as client:
            client.sendmail(sender, recipients, raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))

    def mailbox(self, address: str) -> Mailbox:
        return Mailbox(self.root / "mail" / self._mailbox_path(address), self.log)

    def queue(self) -> list[dict]:
        """The mails Postfix still holds, as `postqueue -j` lists them."""
        listing = self._run("postqueue", "-c", str(self.config), "-j")
        return [json.loads(line) for line in listing.splitlines() if line.strip()]

    def flush(self) -> None:
        """Try all queued mail again now (`postqueue -f`)."""
        self._run("postqueue", "-c", str(self.config), "-f")

    def log(self) -> str:
        return self.log_file.read_text() if self.log_file.exists() else "(no log)"

    def _postconf(self, *args: str) -> None:
        self._run("postconf", "-c", str(self.config), *args)
        self._date_back_the_configuration()

    def _run(self, tool: str, *args: str) -> str:
        executable = shutil.which(tool, path=SBIN)
        assert executable is not None, f"{tool} is not installed"
        done = subprocess.run([executable, *args], capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{tool} {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
        return done.stdout

    def _date_back_the_configuration(self) -> None:
        # Postfix's commands wait while a file they read is less than a second old (it
        # may be half edited); the test edits and uses its files at once, so it dates
        # them back instead of sleeping.
        past = time.time() - 2
        for path in self.config.iterdir():
            os.utime(path, (past, past))


class DkimpyMilter:
    """Debian's dkimpy-milter as a process of the test's own: its configuration rendered from
    deploy/postfix/dkim/dkimpy-milter.conf, its key made with dknewkey as the doc says, its own
    port and folder; stopped at the end. It never touches the system's dkimpy-milter service."""

    USER = "dkimpy-milter"
    """The user Debian's package makes, which the deployed configuration names."""

    def __init__(self, root: Path) -> None:
        self.folder = root / "dkim"
        self.folder.mkdir()
        self.port = free_port()
        self.log_file = self.folder / "milter.log"
        self._process: subprocess.Popen | None = None

    @staticmethod
    def unavailable() -> str | None:
        """Why the signer cannot run here, or None when it can."""
        if shutil.which("dkimpy-milter", path=SBIN) is None:
            return "dkimpy-milter is not installed (Debian: apt-get install dkimpy-milter; .ci/run installs it)"
        try:
            pwd.getpwnam(DkimpyMilter.USER)
        except KeyError:
            return f"no {DkimpyMilter.USER} user for the milter to run as (Debian's dkimpy-milter package makes it)"
        if not Path(OPENSSL).exists():
            return f"dknewkey makes the key with {OPENSSL}, which is not installed"
        return None

    def make_key(self, key_name: str) -> tuple[Path, str]:
        """`dknewkey --ktype rsa KEY_NAME`, as the doc says: the private key's file, and the TXT
        record to publish at the selector (what dknewkey writes into KEY_NAME.dns)."""
        subprocess.run(
            [sys.executable, "-m", "dkim.dknewkey", "--ktype", "rsa", key_name],
            cwd=self.folder,
            check=True,
            capture_output=True,
        )
        return self.folder / f"{key_name}.key", (self.folder / f"{key_name}.dns").read_text().strip()

    def start(self, configuration: str) -> None:
        """Run the milter with `configuration` as the Debian unit runs it, and wait until it listens."""
        config = self.folder / "dkimpy-milter.conf"
        config.write_text(configuration)
        milter = shutil.which("dkimpy-milter", path=SBIN)
        assert milter is not None
        with self.log_file.open("wb") as log:
            self._process = subprocess.Popen(
                [milter, str(config), "-P", str(self.folder / "dkimpy-milter.pid")], stdout=log, stderr=log
            )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise AssertionError(f"dkimpy-milter stopped at start:\n{self.log()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.05)
        raise AssertionError(f"dkimpy-milter does not listen on {self.port}:\n{self.log()}")

    def stop(self) -> None:
        # Killed: it keeps nothing, and on SIGTERM libmilter waits out its poll (seconds).
        if self._process is not None and self._process.poll() is None:
            self._process.kill()
            self._process.wait(10)
        self._process = None

    def log(self) -> str:
        return self.log_file.read_text(errors="replace") if self.log_file.exists() else "(no log)"


class PbmHome:
    """A folder laid out as the doc's /srv/pbm, for the pipe's user: the checkout's
    deploy/ folder, a .venv with pbm, and the environment file the pipe reads.

    The .venv is made from an interpreter that user can run, and sees this test run's
    packages: the test's own interpreter may live where the user cannot go (pyenv
    under /root, mode 0700).
    """

    def __init__(self, root: Path, user: str) -> None:
        self.path = root / "home"
        self.environment = root / "environment"
        self.user = pwd.getpwnam(user)
        self.path.mkdir()
        os.chown(self.path, self.user.pw_uid, self.user.pw_gid)
        (self.path / "deploy").symlink_to(REPOSITORY / "deploy")

    @property
    def pbm(self) -> Path:
        return self.path / ".venv" / "bin" / "pbm"

    def install_pbm(self) -> str | None:
        """Make .venv/bin/pbm; returns why the user cannot run it, or None when it can."""
        version = f"python{sys.version_info.major}.{sys.version_info.minor}"
        interpreter = shutil.which(version, path="/usr/local/bin:/usr/bin:/bin")
        if interpreter is None:
            return f"no {version} outside the test's own virtualenv for the pipe's user to run"
        venv = self.path / ".venv"
        subprocess.run([interpreter, "-m", "venv", "--without-pip", str(venv)], check=True)
        packages = sysconfig.get_paths()["purelib"]
        (venv / "lib" / version / "site-packages" / "test-run.pth").write_text(
            f"import site; site.addsitedir({packages!r})\n"
        )
        # What pip writes as the `pbm` console script.
        self.pbm.write_text(
            f"#!{venv}/bin/python\nimport sys\nfrom pbm.cli import main\n"
            "if __name__ == '__main__':\n    sys.exit(main())\n"
        )
        self.pbm.chmod(0o755)
        done = subprocess.run(
            [self.pbm, "--help"],
            user=self.user.pw_uid,
            group=self.user.pw_gid,
            extra_groups=[],
            cwd=self.path,
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            return f"{self.user.pw_name} cannot run pbm from {packages}: {done.stderr[-300:]}"
        return None

    def database_for_the_user(self, database_url: str) -> str:
        """The database where the user can reach it: a SQLite file moves into a folder of its own."""
        url = make_url(database_url)
        if url.get_backend_name() != "sqlite":
            return database_url
        folder = self.path.parent / "database"
        folder.mkdir()
        path = folder / "pbm.db"
        shutil.copy(str(url.database), path)
        for owned in (folder, path):
            os.chown(owned, self.user.pw_uid, self.user.pw_gid)
        return f"sqlite:///{path}"

    def write_environment(self, **settings: str) -> None:
        """The doc's /etc/pbm/environment: PBM_* settings, one KEY=value a line."""
        self.environment.write_text("".join(f"PBM_{name.upper()}={value}\n" for name, value in settings.items()))
        self.environment.chmod(0o644)
