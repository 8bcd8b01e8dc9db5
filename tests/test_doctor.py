"""`pbm doctor DOMAIN` reads the game domain's DNS (MX, SPF, the DKIM key, DMARC, reverse DNS)
and says, check by check, what it found and what is missing or wrong, with the record to add.
The DNS here is a stub resolver answering from a dict, as dnspython's would: no network."""

from __future__ import annotations

import base64
import copy
import functools

import dns.rdata
import dns.resolver
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from pbm import doctor
from pbm.cli import main as pbm_main
from pbm.doctor import Status
from pbm.mail.provider_check import Tried

DOMAIN = "games.example.org"
SELECTOR = "pbm2026"
MX_HOST = "mx.games.example.org"
IPV4, IPV6 = "192.0.2.10", "2001:db8::10"
REVERSE_IPV4 = "10.2.0.192.in-addr.arpa"
REVERSE_IPV6 = "0.1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa"


@functools.cache
def public_key(bits: int) -> str:
    """A DKIM key's p=: the base64 of an RSA public key's DER form (of a made-up modulus: nobody signs with it)."""
    key = rsa.RSAPublicNumbers(65537, (1 << (bits - 1)) | 1).public_key()
    return base64.b64encode(key.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)).decode()


def txt(text: str) -> str:
    """A TXT record in zone-file form: strings of 255 characters at most, as a long DKIM key is published."""
    return " ".join(f'"{text[start : start + 255]}"' for start in range(0, len(text), 255))


def well_configured() -> dict[str, dict[str, list[str]]]:
    """The domain as deploy/mail-authentication.md sets it up."""
    return {
        DOMAIN: {
            "MX": [f"10 {MX_HOST}."],
            "TXT": [txt("v=spf1 mx -all"), txt("google-site-verification=abc123")],
        },
        MX_HOST: {"A": [IPV4], "AAAA": [IPV6]},
        f"{SELECTOR}._domainkey.{DOMAIN}": {"TXT": [txt(f"v=DKIM1; k=rsa; p={public_key(2048)}")]},
        f"_dmarc.{DOMAIN}": {"TXT": [txt("v=DMARC1; p=quarantine; adkim=s; aspf=s; rua=mailto:dmarc@example.org")]},
        REVERSE_IPV4: {"PTR": [f"{MX_HOST}."]},
        REVERSE_IPV6: {"PTR": [f"{MX_HOST}."]},
    }


class StubResolver:
    """dnspython's ``resolve(qname, rdtype)`` over a dict of names: NXDOMAIN for a name it does not
    hold, NoAnswer for a type the name lacks."""

    def __init__(self, zone: dict[str, dict[str, list[str]]]) -> None:
        self.zone = zone
        self.asked: list[tuple[str, str]] = []

    def resolve(self, qname: str, rdtype: str) -> list:
        self.asked.append((qname, rdtype))
        name = qname.lower().rstrip(".")
        if name not in self.zone:
            raise dns.resolver.NXDOMAIN
        texts = self.zone[name].get(rdtype)
        if not texts:
            raise dns.resolver.NoAnswer
        return [dns.rdata.from_text("IN", rdtype, text) for text in texts]


def diagnose(zone, selector: str | None = SELECTOR) -> dict[str, doctor.Finding]:
    findings = doctor.diagnose(DOMAIN, selector, StubResolver(zone))
    return {finding.check.split()[0]: finding for finding in findings}


def statuses(zone, selector: str | None = SELECTOR) -> dict[str, Status]:
    return {check: finding.status for check, finding in diagnose(zone, selector).items()}


def all_ok_but(**changed: Status) -> dict[str, Status]:
    return {"MX": Status.OK, "SPF": Status.OK, "DKIM": Status.OK, "DMARC": Status.OK, "reverse": Status.OK} | {
        check: status for check, status in changed.items()
    }


def test_a_well_configured_domain_passes_every_check_and_says_what_it_found():
    findings = diagnose(well_configured())
    assert {check: finding.status for check, finding in findings.items()} == all_ok_but()
    assert findings["MX"].found == (f"{DOMAIN}. MX 10 {MX_HOST}. ({IPV4}, {IPV6})",)
    assert findings["SPF"].found == (f'{DOMAIN}. TXT "v=spf1 mx -all"',)
    (key,) = findings["DKIM"].found
    assert key.startswith(f'{SELECTOR}._domainkey.{DOMAIN}. TXT "v=DKIM1; k=rsa; p=MIIB') and key.endswith(
        "(RSA, 2048 bits)"
    )
    assert findings["reverse"].found == (
        f"{IPV4} -> {MX_HOST}. -> {IPV4}, {IPV6}",
        f"{IPV6} -> {MX_HOST}. -> {IPV4}, {IPV6}",
    )
    assert all(not finding.fix for finding in findings.values())


def test_a_domain_without_mx_is_told_to_add_one_and_its_reverse_dns_cannot_be_checked():
    zone = well_configured()
    del zone[DOMAIN]["MX"]
    findings = diagnose(zone)
    assert statuses(zone) == all_ok_but(MX=Status.MISSING, reverse=Status.UNKNOWN)
    assert findings["MX"].fix == (f"{DOMAIN}. IN MX 10 <the name of the host Postfix runs on>.",)


def test_an_mx_host_without_an_address_is_wrong():
    zone = well_configured()
    del zone[MX_HOST]
    assert statuses(zone)["MX"] is Status.WRONG


def test_a_null_mx_is_wrong_the_domain_would_take_no_mail():
    zone = well_configured()
    zone[DOMAIN]["MX"] = ["0 ."]
    finding = diagnose(zone)["MX"]
    assert finding.status is Status.WRONG and "null MX" in finding.notes[0]


def test_a_domain_without_spf_is_given_the_recipes_record():
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt("google-site-verification=abc123")]
    finding = diagnose(zone)["SPF"]
    assert finding.status is Status.MISSING
    assert finding.fix == (f'{DOMAIN}. IN TXT "v=spf1 mx -all"',)


def test_two_spf_records_are_wrong_receivers_take_them_as_an_error():
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt("v=spf1 mx -all"), txt("v=spf1 include:_spf.example.net ~all")]
    finding = diagnose(zone)["SPF"]
    assert finding.status is Status.WRONG and "several SPF records" in finding.notes[0]
    assert len(finding.found) == 2


@pytest.mark.parametrize(
    ("policy", "mended"),
    [
        ("v=spf1 mx +all", "v=spf1 mx -all"),
        ("v=spf1 mx all", "v=spf1 mx -all"),
        ("V=SPF1 a mx +ALL", "v=spf1 a mx -all"),
    ],
)
def test_an_spf_policy_that_lets_every_host_send_is_wrong_and_mended_in_place(policy, mended):
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt(policy)]
    finding = diagnose(zone)["SPF"]
    assert finding.status is Status.WRONG and "+all" in finding.notes[0]
    assert (finding.fix, finding.replacing) == ((f'{DOMAIN}. IN TXT "{mended}"',), True)


@pytest.mark.parametrize(
    "policy",
    [
        "v=spf1 mx ~all",
        "v=spf1 ip4:192.0.2.0/24 -all",
        "v=spf1 ip6:2001:db8::/64 -all",
        "v=spf1 a:games.example.org -all",
    ],
)
def test_an_spf_policy_that_names_the_mx_hosts_or_their_addresses_passes(policy):
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt(policy)]
    zone[DOMAIN]["A"] = [IPV4]
    assert statuses(zone)["SPF"] is Status.OK


@pytest.mark.parametrize(
    ("policy", "warned", "mended"),
    [
        (
            "v=spf1 ip4:198.51.100.7 -all",
            "names neither mx nor the MX hosts' addresses",
            "v=spf1 mx ip4:198.51.100.7 -all",
        ),
        ("v=spf1 mx ?all", "?all", "v=spf1 mx -all"),
        ("v=spf1 mx", "does not end with -all", "v=spf1 mx -all"),
        ("v=spf1 include:_spf.example.net ?all", "?all", "v=spf1 include:_spf.example.net -all"),
    ],
)
def test_an_spf_policy_that_leaves_the_mx_hosts_out_or_stays_neutral_is_a_warning_with_its_mending(
    policy, warned, mended
):
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt(policy)]
    finding = diagnose(zone)["SPF"]
    assert finding.status is Status.WARNING and warned in finding.notes[0]
    assert finding.fix == (f'{DOMAIN}. IN TXT "{mended}"',)


def test_an_spf_policy_that_includes_another_is_not_followed_and_not_blamed():
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt("v=spf1 include:_spf.example.net -all")]
    assert statuses(zone)["SPF"] is Status.OK


def test_a_missing_dkim_key_is_looked_for_at_the_selector_and_its_record_shown():
    zone = well_configured()
    del zone[f"{SELECTOR}._domainkey.{DOMAIN}"]
    resolver = StubResolver(zone)
    findings = doctor.diagnose(DOMAIN, SELECTOR, resolver)
    (dkim,) = [finding for finding in findings if finding.check.startswith("DKIM")]
    assert dkim.check == f"DKIM (selector {SELECTOR})" and dkim.status is Status.MISSING
    assert (f"{SELECTOR}._domainkey.{DOMAIN}.", "TXT") in resolver.asked
    key = "<the public key: what dknewkey wrote into the .dns file>"
    assert dkim.fix == (f'{SELECTOR}._domainkey.{DOMAIN}. IN TXT "v=DKIM1; k=rsa; p={key}"',)


def test_without_a_selector_the_dkim_check_cannot_be_made_and_says_how_to_give_one():
    finding = diagnose(well_configured(), selector=None)["DKIM"]
    assert finding.status is Status.UNKNOWN and "--selector" in finding.notes[0]


@pytest.mark.parametrize(
    ("record", "status", "said"),
    [
        ("v=DKIM1; k=rsa; p=", Status.WRONG, "revoked"),
        ("v=DKIM1; k=rsa; p=bm90IGEga2V5", Status.WRONG, "not an RSA public key"),
        ("v=DKIM1; k=rsa; p={512}", Status.WRONG, "receivers ignore signatures by keys under 1024 bits"),
        ("v=DKIM1; k=rsa; p={1024}", Status.WARNING, "make a 2048-bit one"),
        ("v=DKIM1; k=rsa; t=y; p={2048}", Status.WARNING, "testing"),
        ("v=DKIM1; k=dsa; p={2048}", Status.WRONG, "rsa and ed25519 keys only"),
        ("v=DKIM2; k=rsa; p={2048}", Status.WRONG, "v=DKIM2: a key record says v=DKIM1, or nothing"),
        ("v=DKIM1; k=rsa", Status.WRONG, "no p= tag: the record holds no key"),
        ("v=DKIM1; k=ed25519; p={ed25519}", Status.WARNING, "an ed25519 key alone"),
        ("v=DKIM1; k=ed25519; p=c2hvcnQ=", Status.WRONG, "not an ed25519 public key"),
        ("v=DKIM1; k=ed25519; p=!!!", Status.WRONG, "not an ed25519 public key"),
    ],
)
def test_a_dkim_key_that_receivers_cannot_use_is_wrong_and_a_weak_one_a_warning(record, status, said):
    zone = well_configured()
    keys = {"{512}": public_key(512), "{1024}": public_key(1024), "{2048}": public_key(2048)}
    keys["{ed25519}"] = base64.b64encode(bytes(range(32))).decode()
    for placeholder, key in keys.items():
        record = record.replace(placeholder, key)
    zone[f"{SELECTOR}._domainkey.{DOMAIN}"]["TXT"] = [txt(record)]
    finding = diagnose(zone)["DKIM"]
    assert finding.status is status and said in " ".join(finding.notes)


def test_two_dkim_key_records_at_the_selector_are_wrong():
    zone = well_configured()
    zone[f"{SELECTOR}._domainkey.{DOMAIN}"]["TXT"] *= 2
    finding = diagnose(zone)["DKIM"]
    assert finding.status is Status.WRONG and "several TXT records" in finding.notes[0]


def test_a_domain_without_dmarc_is_given_the_recipes_record():
    zone = well_configured()
    del zone[f"_dmarc.{DOMAIN}"]
    finding = diagnose(zone)["DMARC"]
    assert finding.status is Status.MISSING
    assert finding.fix == (f'_dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=quarantine; adkim=s; aspf=s"',)


def test_dmarc_with_p_none_is_a_warning_and_leaves_the_domain_ready():
    zone = well_configured()
    zone[f"_dmarc.{DOMAIN}"]["TXT"] = [txt("v=DMARC1; p=none; rua=mailto:dmarc@example.org")]
    findings = list(diagnose(zone).values())
    (dmarc,) = [finding for finding in findings if finding.check == "DMARC"]
    assert dmarc.status is Status.WARNING and dmarc.notes[0].startswith("p=none: receivers are asked to do nothing")
    assert dmarc.fix == (f'_dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=quarantine; rua=mailto:dmarc@example.org"',)
    assert dmarc.replacing
    assert doctor.exit_status(findings) == 0


def test_dmarc_covering_part_of_the_mail_is_a_warning_mended_to_all_of_it():
    zone = well_configured()
    zone[f"_dmarc.{DOMAIN}"]["TXT"] = [txt("v=DMARC1; p=reject; pct=20")]
    findings = diagnose(zone)
    dmarc = findings["DMARC"]
    assert dmarc.status is Status.WARNING and "pct=20: the policy covers only part" in dmarc.notes[0]
    assert dmarc.fix == (f'_dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=reject"',)
    lines = doctor.report(DOMAIN, list(findings.values()))
    assert lines[-1] == f"{DOMAIN} is ready for mail, with warnings about DMARC"


def test_a_dmarc_policy_no_receiver_knows_is_wrong_and_mended_to_quarantine():
    zone = well_configured()
    zone[f"_dmarc.{DOMAIN}"]["TXT"] = [txt("v=DMARC1; p=rejekt")]
    dmarc = diagnose(zone)["DMARC"]
    assert dmarc.status is Status.WRONG
    assert dmarc.fix == (f'_dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=quarantine"',)


def test_the_parents_dmarc_policy_applies_to_a_domain_without_its_own_by_its_sp():
    zone = well_configured()
    del zone[f"_dmarc.{DOMAIN}"]
    zone["_dmarc.example.org"] = {"TXT": [txt("v=DMARC1; p=reject; sp=none")]}
    finding = diagnose(zone)["DMARC"]
    assert finding.status is Status.WARNING
    assert finding.notes[0] == f"{DOMAIN} has none of its own: the policy of example.org applies (sp=, else p=)"
    assert finding.notes[1].startswith("p=none")
    assert (finding.fix, finding.replacing) == (
        (f'_dmarc.{DOMAIN}. IN TXT "v=DMARC1; p=quarantine; adkim=s; aspf=s"',),
        False,
    )


def test_two_dmarc_records_are_wrong():
    zone = well_configured()
    zone[f"_dmarc.{DOMAIN}"]["TXT"].append(txt("v=DMARC1; p=none"))
    assert statuses(zone)["DMARC"] is Status.WRONG


def test_an_address_without_ptr_is_told_which_record_its_owner_sets():
    zone = well_configured()
    del zone[REVERSE_IPV6]
    finding = diagnose(zone)["reverse"]
    assert finding.status is Status.MISSING
    assert finding.fix == (f"{REVERSE_IPV6}. IN PTR {MX_HOST}.",)


def test_a_ptr_whose_name_does_not_lead_back_to_the_address_is_wrong():
    zone = well_configured()
    zone[REVERSE_IPV4]["PTR"] = ["static-10.hosting.example.net."]
    zone["static-10.hosting.example.net"] = {"A": ["198.51.100.99"]}
    finding = diagnose(zone)["reverse"]
    assert finding.status is Status.WRONG
    assert f"{IPV4} -> static-10.hosting.example.net. -> 198.51.100.99" in finding.found
    assert "does not lead back to 192.0.2.10" in finding.notes[0]
    assert (finding.fix, finding.replacing) == ((f"{REVERSE_IPV4}. IN PTR {MX_HOST}.",), True)


def test_a_ptr_naming_another_host_that_leads_back_passes_and_names_the_greeting():
    zone = well_configured()
    zone[REVERSE_IPV4]["PTR"] = ["server7.hosting.example.net."]
    zone["server7.hosting.example.net"] = {"A": [IPV4]}
    finding = diagnose(zone)["reverse"]
    assert finding.status is Status.OK
    assert finding.notes == (f"the MTA at {IPV4} must greet as server7.hosting.example.net (smtp_helo_name)",)


def test_an_address_with_several_ptr_records_is_a_warning():
    zone = well_configured()
    zone[REVERSE_IPV4]["PTR"] = [f"{MX_HOST}.", "other.hosting.example.net."]
    zone["other.hosting.example.net"] = {"A": [IPV4]}
    finding = diagnose(zone)["reverse"]
    assert finding.status is Status.WARNING
    assert f"{IPV4} has several PTR records" in " ".join(finding.notes)


def test_an_spf_policy_naming_a_network_that_holds_the_mx_address_passes():
    zone = well_configured()
    zone[DOMAIN]["TXT"] = [txt("v=spf1 ip4:not-a-network ip4:192.0.2.0/24 -all")]
    assert statuses(zone)["SPF"] is Status.OK


class Unanswering(StubResolver):
    def resolve(self, qname: str, rdtype: str) -> list:
        if rdtype == "TXT":
            raise dns.resolver.NoNameservers
        return super().resolve(qname, rdtype)


def test_a_dns_that_does_not_answer_is_said_and_fails_the_checks_it_stops():
    findings = doctor.diagnose(DOMAIN, SELECTOR, Unanswering(well_configured()))
    assert [finding.status for finding in findings] == [
        Status.OK,
        Status.UNKNOWN,
        Status.UNKNOWN,
        Status.UNKNOWN,
        Status.OK,
    ]
    assert findings[1].notes[0].startswith(f"no answer for {DOMAIN}. TXT")
    assert doctor.exit_status(findings) == 1


def test_the_report_says_each_check_then_the_verdict():
    zone = well_configured()
    zone[DOMAIN]["TXT"] = []
    lines = doctor.report(DOMAIN, doctor.diagnose(DOMAIN, SELECTOR, StubResolver(zone)))
    spf = lines.index("SPF: missing")
    assert lines[spf + 1 : spf + 3] == [
        f"  no SPF record: receivers cannot tell which hosts may send mail from {DOMAIN}",
        f'  add       {DOMAIN}. IN TXT "v=spf1 mx -all"',
    ]
    assert lines[-1] == f"{DOMAIN} is not ready for mail: SPF to mend"


# The command.


@pytest.fixture
def dns_of(monkeypatch):
    """Make `pbm doctor` ask a stub instead of the machine's resolver."""

    def use(zone) -> None:
        monkeypatch.setattr(doctor, "system_resolver", lambda: StubResolver(zone))

    return use


def test_pbm_doctor_exits_0_for_a_ready_domain(dns_of, capsys):
    dns_of(well_configured())
    assert pbm_main(["doctor", DOMAIN, "--selector", SELECTOR]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == f"{DOMAIN} is ready for mail"
    assert f"DKIM (selector {SELECTOR}): ok" in out


def test_pbm_doctor_exits_1_when_something_required_is_missing(dns_of, capsys):
    zone = well_configured()
    del zone[f"_dmarc.{DOMAIN}"]
    dns_of(zone)
    assert pbm_main(["doctor", DOMAIN, "--selector", SELECTOR]) == 1
    assert "DMARC: missing" in capsys.readouterr().out


def test_pbm_doctor_takes_the_selector_and_the_domain_from_the_settings(dns_of, monkeypatch, capsys):
    monkeypatch.setenv("PBM_ADDRESS", f"pbm@{DOMAIN}")
    monkeypatch.setenv("PBM_DKIM_SELECTOR", SELECTOR)
    dns_of(well_configured())
    assert pbm_main(["doctor"]) == 0
    assert f"DKIM (selector {SELECTOR}): ok" in capsys.readouterr().out


def test_pbm_doctor_refuses_what_is_not_a_domain_name(dns_of, capsys):
    dns_of(copy.deepcopy(well_configured()))
    with pytest.raises(SystemExit) as exited:
        pbm_main(["doctor", "not a domain", "--selector", SELECTOR])
    assert exited.value.code == 2
    assert "not a domain name" in capsys.readouterr().err


def provider_setup(tmp_path, **changes) -> doctor.ProviderSetup:
    password = tmp_path / "mailbox-password"
    password.write_text("app-password\n")
    password.chmod(0o600)
    setup = {
        "address": "games@ourclub.org",
        "inbound": "imaps://games%40ourclub.org@imap.provider.example:993/INBOX",
        "outbound": "submission://games%40ourclub.org@smtp.provider.example:587",
        "outbound_kind": "submission",
        "max_per_day": 500,
        "password_file": str(password),
        "password_command": False,
    }
    return doctor.ProviderSetup(**{**setup, **changes})


def test_with_a_mailbox_at_a_provider_the_doctor_checks_what_it_needs_not_mx_and_dkim(tmp_path):
    findings = doctor.diagnose_provider(provider_setup(tmp_path))
    assert [f.check for f in findings] == ["plus addressing", "sending", "sending limit", "password"]
    assert {f.status for f in findings} == {Status.OK}
    assert "mail games+test@ourclub.org and see it arrive" in findings[0].notes[0]
    lines = doctor.report("ourclub.org", findings)
    assert lines[-1] == "ourclub.org is ready for mail" and not any("MX" in line for line in lines)


def test_the_doctor_warns_of_a_missing_daily_limit_replies_not_sent_through_the_provider_and_a_readable_secret(
    tmp_path,
):
    setup = provider_setup(tmp_path, max_per_day=None, outbound="smtp://127.0.0.1:25", outbound_kind="smtp")
    (tmp_path / "mailbox-password").chmod(0o644)
    by_check = {f.check: f for f in doctor.diagnose_provider(setup)}
    assert by_check["sending limit"].status is Status.WARNING
    assert "PBM_OUTBOUND_MAX_PER_DAY" in by_check["sending limit"].notes[0]
    assert by_check["sending"].status is Status.WARNING
    assert by_check["password"].status is Status.WARNING and "chmod 600" in by_check["password"].notes[0]
    missing = doctor.diagnose_provider(provider_setup(tmp_path, password_file=str(tmp_path / "none")))
    assert missing[-1].status is Status.WRONG
    assert doctor.exit_status(missing) == 1


def test_the_doctor_says_what_logging_in_to_the_provider_found(tmp_path):
    refused = Tried(False, "the login was refused: NO [AUTHENTICATIONFAILED] Authentication failed.")
    setup = provider_setup(tmp_path, mailbox=Tried(True, "logged in", ("IDLE",)), submission=refused)
    by_check = {f.check: f for f in doctor.diagnose_provider(setup)}
    assert by_check["mailbox"].status is Status.WARNING
    assert "no IDLE: new mail is looked for every 30 seconds" in by_check["mailbox"].notes[0]
    assert by_check["submission"].status is Status.WRONG and "refused" in by_check["submission"].notes[0]
    assert doctor.exit_status(list(by_check.values())) == 1
    welcomed = doctor.diagnose_provider(provider_setup(tmp_path, mailbox=Tried(True, "logged in")))
    assert welcomed[-1].check == "mailbox" and welcomed[-1].status is Status.OK
