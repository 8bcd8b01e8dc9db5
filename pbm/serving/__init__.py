"""``pbm serve``: the one place the server is put together. `parts` builds the parts from the
settings (database, mail workers, web application); `server` starts and stops them; `systemd`
tells the service manager how it goes. The sockets they listen on are `pbm.listeners`."""
