"""The parts of the server's settings that `pbm.config` puts together.

- `values`: the kinds of value a setting takes (addresses to listen on, where mail comes from and
  goes, spans of time, userids), each read from its variable's text;
- `club`: the house rules and limits the commands apply, as the command layer receives them;
- `shown`: a setting's value as ``pbm config show`` prints it, secrets hidden.
"""
