"""What msd_run's hot path needs without heavy imports: standard library only, importing no other
msd package (layer 1 of docs/ARCHITECTURE.md). The start-up stand-ins live here together, each
with the real library it stands in for, what it saves and its fallback in docs/PERFORMANCE.md
("Start-up stand-ins"), and a test that it agrees with that library:

  record.py       plain record classes without the dataclasses import
  simple_yaml.py  the common form of planning frontmatter without PyYAML (anything else: PyYAML)
  simple_toml.py  the TOML form of msd's flow files without tomllib (anything else: tomllib)
  stand_in.py     a standard module imported without the modules one rare branch of it needs
  spawn.py        a short-lived program run without the subprocess module (git, mostly)

and the small decisions every entry shares:

  project_rule.py  which folder a command acts on (the one project rule; os.path only)
  terminal.py      the one filter of text bound for a terminal (escape sequences, control characters)
  guard_names.py   the names of the guard server the host starts
  guard_limits.py  the size limits both guard transports share
"""
