"""The health of a project's `.planning/` tree: `msd_run health [--repair [--dry-run]]`.

  codes.py     every finding's code, its severity and whether `--repair` fixes it (the one table)
  tree.py      the planning files: phase folders against ROADMAP.md, plans and their summaries,
               frontmatter, STATE.md against the tree, handoffs
  private.py   msd's own working files: interrupted changes, temp files, the flow state, the
               gate's marker, run records, chain tickets, stray `.msd-new` files
  check.py     every check run in order, and the report (status, counts, findings)
  roots.py     references to phases of other `.planning/` roots (`Depends on: Phase N of <root>`)
  repair.py    the safe repairs, planned from the findings and applied in ONE transaction
               (msd_core.files.txn, as phase surgery does), then checked again

A check only reads: nothing under `.planning/` is created or changed by `health` without
`--repair`, and `--repair --dry-run` writes nothing either. Standard library only.
"""
