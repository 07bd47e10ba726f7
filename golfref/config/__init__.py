"""Match and tournament configs: the settings as values (the sandbox's among them), read from YAML and
checked, with errors that name the key and line. Reading a config starts no process and loads no
subprocess: what probes the machine is golfref.bots'.

May import: golfref.game, golfref.kit (a python player's policy is imported, and checked, as its config is read).
"""
