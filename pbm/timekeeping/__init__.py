"""Time as the club keeps it, below the store: a game's time rules and turns (`clocks`), spans
written one way (`durations`), and the wall clocks of the zones players live in (`local_time`).
The words these facts of time are said with are in `messages`."""
