"""Project configuration: the schema (schema.json + schema.py), coercion of typed values
(coerce.py) and the layered store (store.py: project config.json > user defaults > schema
default). Standard library only: `msd_run config get` runs on the hot path.
  migrate.py  keys the schema dropped, and the one that moved
  wizard.py   the questions `msd init new-project` asks, and how the answers are written"""
