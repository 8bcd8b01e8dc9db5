# Two commands for a fresh machine that has only python3:
#   make run    creates .venv, installs the server alone (no test tools), migrates and serves
#               (SQLite in var/pbm.db)
#   make test   creates .venv with the test extras and runs the suite (833 s here for 4 776 tests:
#               over the ten minutes it should take, issue 45):
#               everything but the fault suite and the simulated season, which have targets
#   make faults the fault suite at full size, with its figures in test-artifacts/faults.json
#               (FAULTS_SCALE=bounded for its two-minute form)
#   make season the simulated season of correspondence games at full size
#   make slow   the fault suite, the season and a club's month in their bounded forms (about three minutes)
#   make install-check  pip install . into a new venv outside the checkout, then a game by mail
#   make endgames  the top level of Cephalopod checked against plain minimax on 200 endgames
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: run test slow coverage faults season lint bench install-check ladder endgames clean messages

# The languages' catalogues brought up to date with the code and templates (README: "Translating pbm").
messages: $(BIN)/.installed
	$(BIN)/python -m pbm.translating extract
	$(BIN)/python -m pbm.translating update
	$(BIN)/python -m pbm.translating compile

CATALOGUES := $(wildcard pbm/locale/*/LC_MESSAGES/*.po)

# Two stamps: .installed is the server with the test extras (what every target but `run` needs),
# .server the server alone. `make run` after `make test` finds the server installed already.
$(BIN)/.installed: pyproject.toml $(CATALOGUES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	$(BIN)/python -m pbm.translating compile
	touch $@ $(BIN)/.server

# PostgreSQL's driver only for a server configured to use it.
SERVER_PACKAGE := $(if $(findstring postgresql,$(PBM_DATABASE_URL)),'.[postgres]',.)

$(BIN)/.server: pyproject.toml $(CATALOGUES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e $(SERVER_PACKAGE)
	$(BIN)/python -m pbm.translating compile
	touch $@

run: $(BIN)/.server
	$(BIN)/pbm db upgrade
	$(BIN)/pbm serve

# Five workers on two cores, a test file each at a time: the suite waits on SMTP, databases and
# servers it starts as much as it computes (1 108 s of CPU in 877 s with three workers), so more
# workers than cores fill the waits: 648 s with five, 673 s with four, from clean clones of the
# 2 901-test suite; 814 s for 4 125 tests with five (clean clone of f39d5f0); 418 s for 4 390 once the
# PostgreSQL tests' databases were emptied for the next test instead of cloned anew (clean clone of 719b6ad).
#
# The tests' files (SQLite databases, maildirs, servers' var/) live in memory where the machine
# has a tmpfs: a commit there costs 0.02 ms instead of 2.7 ms of fsync on this machine's disk, and
# the suite commits tens of thousands of times. Nothing here tests surviving a power cut; the
# crash tests kill processes, which fsync does not change.
TEST_TMPDIR ?= $(shell test -d /dev/shm -a -w /dev/shm && echo /dev/shm || echo $${TMPDIR:-/tmp})

test: $(BIN)/.installed
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -n $(WORKERS) --dist loadfile $(QUICK)

WORKERS ?= 5

# What `make test` leaves to its own targets: minutes of crashes, floods and simulated months.
# And the PostgreSQL runs of the long property tests whose property is about words, not the
# database: no secret in a mail or a log line, a move list's tail, a thousand bad lines. Each
# plays dozens of mails per example through a whole server; on SQLite they stay in `make test`. The same
# for every ending of every game made into a record and verified (68 s on PostgreSQL; 24 s on SQLite).
SEASON := tests/time/test_season.py::test_a_season_of_correspondence_games_keeps_time
# A club's month of digests and quiet hours (40 players over 14 days here; CLUB_MONTH_SCALE=full
# for 200 over 30): half a minute of mail on one worker, a simulation like the season.
CLUB_MONTH := tests/time/test_club_month.py
LONG_ON_POSTGRESQL := \
	"tests/mail/test_secrets_in_logs.py::test_no_secret_reaches_a_log_line[postgresql]" \
	"tests/mail/test_no_secret_in_mail.py::test_the_password_a_command_line_carries_never_comes_back[postgresql]" \
	"tests/mail/test_no_secret_in_mail.py::test_no_mail_of_any_kind_holds_a_secret[postgresql]" \
	"tests/mail/test_volume_limits.py::test_a_thousand_bad_command_lines_cost_a_handful_of_small_mails[postgresql]" \
	"tests/records/test_every_ending.py::test_every_ending_of_every_game_gives_a_record_that_verifies[postgresql]"
# The bots' thinking killed and replaced under a real pbm serve, Dodeca at every level (about 100 s):
# a crash test like the fault suite's, run with it. tests/e2e/test_a_new_club.py keeps the bots'
# searching of all three games by mail in `make test`.
BOTS_THINK := tests/e2e/test_bots_think.py
QUICK := -m "not install" --ignore=tests/faults --ignore=$(CLUB_MONTH) --ignore=$(BOTS_THINK) --deselect $(SEASON) \
	$(addprefix --deselect ,$(LONG_ON_POSTGRESQL))

slow: $(BIN)/.installed
	TMPDIR=$(TEST_TMPDIR) FAULTS_SCALE=bounded $(BIN)/python -m pytest -n 3 --dist loadfile tests/faults $(SEASON) $(CLUB_MONTH) \
		$(BOTS_THINK) $(LONG_ON_POSTGRESQL)

# The suite as `make test` runs it, with the line coverage of pbm/ (coverage.py), in
# test-artifacts/coverage.txt: slower than `make test`, so a target of its own.
coverage: $(BIN)/.installed
	mkdir -p test-artifacts
	TMPDIR=$(TEST_TMPDIR) FAULTS_SCALE=bounded $(BIN)/python -m pytest -n 3 --dist loadfile --cov=pbm --cov-report=term:skip-covered \
		--cov-report=json:test-artifacts/coverage.json | tee test-artifacts/coverage.txt

# Minutes, not seconds: 25 SIGKILLs per backend, thousands of hostile mails, long outages.
faults: $(BIN)/.installed
	FAULTS_SCALE=$${FAULTS_SCALE:-full} $(BIN)/python -m pytest tests/faults -o timeout=3600

# 300 games over four simulated months, the time pass every simulated hour.
season: $(BIN)/.installed
	SEASON_SCALE=full $(BIN)/python -m pytest tests/time/test_season.py -o timeout=3600 -s

lint: $(BIN)/.installed
	$(BIN)/ruff check pbm tests benchmarks migrations
	$(BIN)/mypy
	$(BIN)/lint-imports

bench: $(BIN)/.installed
	$(BIN)/python -m benchmarks

# `pip install .` into a new venv outside the checkout, then `pbm serve` there playing a game by
# mail: a minute or two of building and installing, so a target of its own.
install-check: $(BIN)/.installed
	TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -m install tests/test_install.py -o timeout=900

# The bots' round robin and its Elo table (pbm/bots/strength.json, which help and web show), in a
# bounded form by default: neighbouring levels only, four Cephalopod games a pair and two of the
# others, about half an hour on two shared cores, added to the stored games (--add) so that the
# table keeps the full size's intervals and takes this run's seconds a move (CPU time: see
# benchmarks/ladder.py). LADDER="--games 100 --cubeo-games 20 --dodeca-games 20 --far 0.25"
# is the full size from scratch: hours, as a game of the strongest Cephalopod levels runs 140
# plies at a few tenths of a second a move. With --add, a run writes the games after each one,
# so the full size can be reached over several runs; without it, a run replaces the stored games.
LADDER ?= --games 4 --cubeo-games 2 --dodeca-games 2 --far 0 --add

ladder: $(BIN)/.installed
	$(BIN)/python -m benchmarks.ladder $(LADDER)

# The top level's exact endgames at full size: 200 random 5x5 endgames of 3 to 5 empty cells that
# plain minimax settles within 20 000 positions (most drawn are bigger: about 7 in 8 are passed
# over), each checked move by move; the score is printed. Tens of minutes of one core.
endgames: $(BIN)/.installed
	ENDGAMES_SCALE=full TMPDIR=$(TEST_TMPDIR) $(BIN)/python -m pytest -q -s -n 0 --timeout 7200 tests/bots/test_exact_endgames.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .hypothesis
