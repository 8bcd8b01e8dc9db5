"""The engines' words: every fact an engine raises or returns, in English.

An engine decides facts (``Fact("cell-occupied", cell="c3")``); this catalogue says them.
A game installed from a package brings its own catalogue in `Game.messages`.

The blocks follow who raises: every game (`pbm.games.base`), then each game, its codes
prefixed by its name. A parameter named ``moves`` or ``choices`` is a listing as the
notation writes it (``a2=a1+a3, b1``), not words.
"""

from __future__ import annotations

from pbm.facts import Catalogue, Plural, merged

EVERY_GAME: Catalogue = {
    # Options and players (a challenge), the registry.
    "unknown-game": "there is no game called '{name}' here; the games are: {games}",
    "not-an-option": "The word '{word}' is not an option (options look like -name or -name=value)",
    "option-takes-no-value": "The option -{option} takes no value; write just -{option}",
    "option-needs-a-number": "The option -{option} needs a number: {usage}",
    "option-is-a-flag": "The option -{option} is a flag: it is either given or not",
    "option-out-of-range": "The option -{option}={value} is out of range; choose one of {choices}",
    "no-such-option": "{game} has no option -{option} (its options: {known})",
    "no-options-at-all": "{game} has no option -{option} (its options: none)",
    "players-exactly": "{game} is played by exactly {wanted} players, not {players}",
    "players-out-of-range": "{game} is played by {low} to {high} players, not {players}",
    # Moves, whatever the game.
    "guard-not-a-number": "'#{guard}' is not a move number: write the guard as #N, e.g. #7",
    "stale-move": (
        "this move was written for move {written_for}, but the game is at move {at}"
        " (the board changed since); show the board and send the move again"
    ),
    "game-over": "the game is over; no more moves can be played",
    "cannot-take-back": "{game} cannot take a move back",
    "no-move-to-take-back": "there is no move to take back",
    "one-or-other": "{first} or {other}",
    # What a move did (`MoveReport`).
    "played": "played {move}",
    # How the list of games credits a game (`Game.attribution_fact`).
    "game-by": "{game}, a game by {designer}",
}

_FILLED_TIE = "when the board filled up with a tie for first place"

CEPHALOPOD: Catalogue = {
    # Positions (`from_position`, `load`).
    "cephalopod-not-a-position": (
        "{position!r} is not a position: write the rows, a space and the seat to move, e.g. 'a1.b2/.../a3.. b'"
    ),
    "cephalopod-rows-out-of-range": "the position has {rows} rows; boards are 3 to 9 rows high",
    "cephalopod-rows-not-size": "the position has {rows} rows, but -size={size} was asked for",
    "cephalopod-row-length": "row {row} has {cells} cells, but the board has {size} rows and so {size} columns",
    "cephalopod-not-a-cell": "{token!r} at {cell} is not a cell: write '.' or a seat letter a-f and the pips, e.g. a3",
    "cephalopod-pips-out-of-range": "{token} at {cell}: a die shows 1 to {dice}",
    "cephalopod-not-a-seat-letter": "the seat to move must be a letter a-f, not {mover!r}",
    "cephalopod-seats-not-numbers": "the seats in play must be seat numbers, not {seats}",
    "cephalopod-players-not-a-number": "the number of players must be a whole number, not {players}",
    "cephalopod-no-such-seat": "seat {seat} does not exist in a game of {players} players",
    "cephalopod-nobody-in-play": "only nobody would be in play; name the seats in play (seats=...)",
    "cephalopod-too-few-in-play": "only {seats} would be in play; name the seats in play (seats=...)",
    "cephalopod-mover-not-in-play": "{seat} is to move but is not in play",
    "cephalopod-dice-not-in-play": "{seats} has dice on the board but is not in play",
    "cephalopod-bad-move-count": "the move count must be a whole number of 0 or more, not {ply}",
    "cephalopod-full-board-tie": (
        "the board is full with a tie for first place; the players tied for last should have been eliminated"
    ),
    "cephalopod-stored-data": "stored Cephalopod data needs position, players, in_play, ply and options",
    # Moves.
    "cephalopod-off-board": "{cell} is not on the board; it runs from a1 to {last}",
    "cephalopod-no-move": "no move given: name a cell, such as c3, or a capture, such as c3=b3+c2",
    "cephalopod-not-a-move": "{text!r} is not a move: name a cell, such as c3, or a capture, such as c3=b3+c2 or c3=5",
    "cephalopod-occupied": "{cell} is occupied",
    "cephalopod-capture-compulsory": "a capture is compulsory at {cell}: {moves}",
    "cephalopod-nothing-to-capture": "nothing can be captured at {cell}, so a die placed there shows 1: play {cell}",
    "cephalopod-no-capture-makes": "no capture at {cell} makes {total}; the moves at {cell}: {moves}",
    "cephalopod-ambiguous-total": "{cell}={total} could be {choices}; say which dice to capture",
    "cephalopod-bad-capture": (
        "{text!r} is not a move: after '=' name the captured cells joined by '+',"
        " such as {cell}=b3+c2, or the value, such as {cell}=5"
    ),
    "cephalopod-not-next-to": "{captured} is not next to {cell}; the moves at {cell}: {moves}",
    "cephalopod-named-twice": "{captured} is named twice; the moves at {cell}: {moves}",
    "cephalopod-capture-empty": "{captured} is empty, so it cannot be captured; the moves at {cell}: {moves}",
    "cephalopod-capture-too-few": "a capture takes at least two dice; the moves at {cell}: {moves}",
    "cephalopod-capture-too-much": "{captured} add up to {total}, more than {dice}; the moves at {cell}: {moves}",
    "cephalopod-not-canonical": "{move!r} is not a move in canonical notation",
    "cephalopod-not-legal-here": "{move} is not legal here; the moves at {cell}: {moves}",
    "cephalopod-seat-gone": "{seat} is no longer in the game",
    # What a move did, and who it put out.
    "cephalopod-captured": "played {move}, capturing {count} dice ({dice})",
    "cephalopod-die-showing": "a {pips}",
    "cephalopod-die-showing-an": "an {pips}",
    "cephalopod-filled": "played {move}, filling the board",
    "cephalopod-out-in-two-rounds": (
        "are out: the board filled up with a tie for first place, so {first} holding no"
        " cells went out first, and then {second} holding the fewest cells ({fewest})"
    ),
    "cephalopod-the-players": Plural("count", "the player", "the {count} players"),
    "cephalopod-each": Plural("count", "{fewest}", "{fewest} each"),
    "cephalopod-out-holding-none": Plural(
        "count", f"is out, holding no cells {_FILLED_TIE}", f"are out, holding no cells {_FILLED_TIE}"
    ),
    "cephalopod-out-holding-fewest": "is out, holding the fewest cells ({fewest}) " + _FILLED_TIE,
    "cephalopod-out-tied-for-fewest": "are out, tied for the fewest cells ({fewest} each) " + _FILLED_TIE,
    # How a game ended (`Result`).
    "cephalopod-last-player": "won as the last player left",
    "cephalopod-most-cells": "won, holding {held} of the {cells} cells",
    "cephalopod-tie": Plural("held", "tied, each holding {held} cell", "tied, each holding {held} cells"),
}

_CUBEO_FORMS = "write +x,y to add, p,x,y->x2,y2 to move, p,x,y+>x2,y2 to merge (the p, pips, may be left out)"

CUBEO: Catalogue = {
    # Positions (`from_position`, `load`).
    "cubeo-not-a-position": (
        "a Cubeo position has three or four parts separated by '/': "
        "dice (owner:pips@x,y ...), the seat to move (1 or 2), the moves played, and options"
    ),
    "cubeo-options-disagree": "the position says -{option}={written}, the options -{option}={given}",
    "cubeo-not-a-die": "'{word}' is not a die: write owner:pips@x,y, e.g. 1:3@0,-1",
    "cubeo-not-a-seat": "'{word}' is not a seat to move: write 1 or 2",
    "cubeo-not-a-move-count": "'{word}' is not a number of moves played",
    "cubeo-no-such-seat": "seat {seat} cannot move: Cubeo has seats 1 and 2",
    "cubeo-negative-move-count": "the number of moves played cannot be negative",
    "cubeo-die-without-owner": "the die at {cell} has no owner among seats 1 and 2",
    "cubeo-two-dice-on-a-cell": "two dice lie at {cell}",
    "cubeo-impossible-pips": "the die at {cell} shows {pips}: no die shows that",
    "cubeo-dice-count": "{seat} has {count} dice on the board; it must be 1 to {dice}",
    "cubeo-two-winning-dice": "more than one die shows over {dice}: only one merge can win",
    "cubeo-not-one-formation": "the dice do not form one formation (they must touch side to side)",
    "cubeo-stored-data": "a stored Cubeo game is damaged: {error}",
    # Moves.
    "cubeo-not-canonical": "{move!r} is not a move in canonical notation legal in this position",
    "cubeo-not-legal": "{move} is not a legal move in this position",
    "cubeo-empty-move": "the move is empty: " + _CUBEO_FORMS,
    "cubeo-not-a-move": "'{text}' is not a Cubeo move: " + _CUBEO_FORMS,
    "cubeo-wrong-pips": "the die at {cell} shows {pips}, not {written}",
    "cubeo-no-die-of-yours": "there is no die of yours at {cell}",
    "cubeo-die-of-another": "there is no die of yours at {cell} (the die there is {seat}'s)",
    "cubeo-die-cannot-move": "{cell} names your die but not where it goes, and it has no legal move",
    "cubeo-where-to": "{cell} names your die but not where it goes; it can play: {moves}",
    # Cubeo's cells and moves listed: their coordinates hold commas, so a semicolon parts them
    # (in French, with the space French puts before it).
    "cubeo-list": "{first}; {rest}",
    "cubeo-none-in-hand": "you have no dice left in hand (all {dice} are on the board)",
    "cubeo-add-taken": "{move} is taken: a die lies there already",
    "cubeo-add-not-touching": "{move} does not touch your dice: a new die must lie beside one of yours",
    "cubeo-add-touches-enemy": "{move} touches an enemy die: a new die may touch only your own",
    "cubeo-add-enclosed": "{move} is enclosed by the formation: a new die cannot slide in there",
    "cubeo-add-not-legal": "{move} is not a legal add here",
    "cubeo-pinned-moving": "the die at {cell} is pinned: moving it would split the formation",
    "cubeo-move-taken": "{cell} is taken; to merge into your die there write {merge}",
    "cubeo-strict-same-look": (
        "with -strict no move may leave the formation looking as it did (the same after a rotation or reflection)"
    ),
    "cubeo-reaches": Plural(
        "pips",
        "a {pips} must move exactly {pips} step; from {cell} it can reach: {cells}",
        "a {pips} must move exactly {pips} steps; from {cell} it can reach: {cells}",
    ),
    "cubeo-reaches-nothing": Plural(
        "pips",
        "a {pips} must move exactly {pips} step; from {cell} it can reach: no cell at all",
        "a {pips} must move exactly {pips} steps; from {cell} it can reach: no cell at all",
    ),
    "cubeo-merge-into-nothing": "there is no die at {target} to merge into; to move there write {move}",
    "cubeo-merge-into-enemy": "you can merge only into your own dice; the die at {target} is {seat}'s",
    "cubeo-merge-not-beside": "the dice at {source} and {target} are not side by side",
    "cubeo-merge-too-few": "merging needs at least 3 of your dice on the board; you have {count}",
    "cubeo-pinned-taking": "the die at {cell} is pinned: taking it away would split the formation",
    "cubeo-enclosed": "the die at {cell} is enclosed: it cannot slide out of the formation",
    "cubeo-samevalue": "with -samevalue a merge above {dice} needs two equal dice; {pips} and {other} differ",
    "cubeo-merge-not-legal": "{move} is not a legal merge here",
    "cubeo-remove-not-allowed": "-{cell} takes a die off the board, which only the -remove option allows",
    "cubeo-remove-last-die": "you cannot remove your last die on the board",
    "cubeo-remove-not-legal": "-{cell} is not a legal removal here",
    # The line below the board (`pbm.games.cubeo.in_hand`).
    "cubeo-in-hand": "In hand: {first} (n) {first_count}, {second} <n> {second_count} (of {dice} each)",
    # What a move did.
    "cubeo-adding": "played {move}, adding a die at {cell} ({left} left in hand)",
    "cubeo-adding-the-last": "played {move}, adding a die at {cell} (none left in hand)",
    "cubeo-removing": "played {move}, taking the {pips} on {cell} back into hand",
    "cubeo-moving": "played {move}, moving the {pips} from {source} to {target}",
    "cubeo-merging": "played {move}, merging the {pips} on {source} into the {into} on {target} to make {made}",
    # How a game ended.
    "cubeo-merged": "won by merging to {pips}",
    "cubeo-no-move": "won, leaving the opponent no legal turn",
}

_DODECA_CAPTURED = "played {move}: the {kind} captured the {taken} on {square} and shows {face}"

DODECA: Catalogue = {
    "dodeca-attribution": "{game}, from the {source} games pages",
    # The notes below the board (`Dodeca.public_facts`).
    "dodeca-roll-off-pair": "South {south}, North {north}",
    "dodeca-roll-off-then": "{first}; {then}",
    "dodeca-who-starts": "Who starts (a d10 each): {pairs}. {seat} moves first.",
    "dodeca-may-reroll-only-if-stuck": (
        "{seat} rerolled last turn, so may reroll now only if no die of theirs can move."
    ),
    "dice-commitment": "Dice commitment: SHA-256 of the secret dice seed is {hash}",
    "dice-seed-revealed": "Dice seed (revealed): {seed}",
    "dice-check-every-roll": (
        "Check every roll: roll i is {hmac}(seed, {message}) mapped onto the die (recipe in {recipe}, "
        "or run: {command})"
    ),
    # Positions (`from_position`).
    "dodeca-not-a-position": (
        "'{position}' is not a Dodeca position: write '<rows> <to-move> <rerolled>',"
        " the rows from 10 down to 1 separated by /, e.g. '<10 rows> a -'"
    ),
    "dodeca-not-a-side": "the side to move is a (South) or b (North), not '{side}'",
    "dodeca-not-rerolled-seats": "the seats that rerolled last are listed as a, b, ab or -, not '{rerolled}'",
    "dodeca-row-count": "a Dodeca position has 10 rows separated by /, not {rows}",
    "dodeca-bad-cell": "row {row} '{text}' has a cell that is neither . nor seat+type+face such as at3 or bd10",
    "dodeca-row-length": "row {row} '{text}' has {cells} cells, not 10",
    "dodeca-impossible-face": "{cell} on {square}: a {kind} shows 1 to {sides}",
    "dodeca-too-many": "{seat} has {count} {kind}s, but a set holds only {most}",
    "dodeca-no-dodeca": "neither side has a Dodeca; a game ends when the second one is captured",
    # Moves.
    "dodeca-not-a-square": "'{text}' is not a square: a square is a column a-j and a row 1-10, e.g. c2",
    "dodeca-off-board": "{text} is not on the board: columns run a to j and rows 1 to 10",
    "dodeca-not-canonical": "'{move}' is not in canonical notation; it would be written {canonical}",
    "dodeca-reroll-which": "say which die to reroll, e.g. roll c2",
    "dodeca-not-a-move": (
        "'{text}' is not a Dodeca move: write a move as c2-c6=3, a capture as c2xd3=5, a reroll as roll c2"
    ),
    "dodeca-empty-square": "there is no die of yours on {square}: the square is empty",
    "dodeca-die-of-another": "there is no die of yours on {square}: the {kind} there is {seat}'s",
    "dodeca-rerolled-last-turn": (
        "you rerolled last turn; you may reroll twice in a row only when none of your dice can move"
    ),
    "dodeca-standing-still": "{square}-{square} does not move the die; to reroll it, write roll {square}",
    "dodeca-not-straight": (
        "{target} is not in a straight line from {source}: dice move along rows, columns or diagonals"
    ),
    "dodeca-friendly-die": "{target} holds one of your own dice, and a die never lands on a friendly die",
    "dodeca-cannot-move-that-way": "{rule}, so it cannot move {way} to the empty square {target}",
    "dodeca-cannot-capture-that-way": "{rule}, so it cannot capture {way} on {target}",
    "dodeca-wrong-distance": Plural(
        "distance",
        "{target} is {distance} square away but the {kind} shows {face}",
        "{target} is {distance} squares away but the {kind} shows {face}",
    ),
    "dodeca-blocked": "{target} is blocked by the die at {square}",
    "dodeca-which-face": "say which face the {kind} shows after the move: {moves}",
    "dodeca-wrong-face": "the new face must be {faces}: a {kind} showing {face} turns one face up or down",
    # How each kind of die goes (inside the refusals above).
    "dodeca-a-kind": "a {kind}",
    "dodeca-an-kind": "an {kind}",
    "dodeca-rule": "{die} moves {moves} and captures {captures}",
    "dodeca-rule-one-way": "{die} moves and captures {way}",
    "dodeca-orthogonally": "orthogonally",
    "dodeca-diagonally": "diagonally",
    # The sides, inside the facts above that name one.
    "dodeca-south": "South",
    "dodeca-north": "North",
    # What a move did.
    "dodeca-rolled-again": "played {move}: the {kind} rolled {face} again",
    "dodeca-rolled": "played {move}: the {kind} rolled {face} (it showed {before})",
    "dodeca-moved": "played {move}: the {kind} moved to {square} and shows {face}",
    "dodeca-captured": _DODECA_CAPTURED,
    "dodeca-captured-one-dodeca-left": _DODECA_CAPTURED + "; one enemy Dodeca is left",
    "dodeca-captured-no-dodeca-left": _DODECA_CAPTURED + "; no enemy Dodeca is left",
    # How a game ended.
    "dodeca-dodecas-captured": "won by capturing both enemy Dodecas",
}

MESSAGES: Catalogue = merged([EVERY_GAME, CEPHALOPOD, CUBEO, DODECA])
