"""How the server is doing, for the operators: the counters ``/metrics`` serves (`metrics`) and
whether the bots' thinking keeps up (`bot_health`)."""
