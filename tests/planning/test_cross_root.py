"""ROADMAP.md's `Depends on: Phase N of <folder>` (msd_core.planning.cross_root)."""

from __future__ import annotations

from pathlib import Path

import pytest

from msd_core.planning.cross_root import cross_refs, folder_of, refs_of

ROADMAP = """# Roadmap

- [ ] **Phase 1: Core** - x
- [ ] **Phase 2: Checkout** - y

### Phase 1: Core
**Depends on**: Nothing

### Phase 2: Checkout
**Goal**: pay
**Depends on**: Phase 1, Phase 02 of services/api, phase 3.1 of `libs/money`

```
Depends on: Phase 9 of example/in-a-fence
```

## Backlog
Depends on: Phase 4 of not/a/phase/block
"""


def test_references_are_read_from_each_phase_block_only():
    refs = cross_refs(ROADMAP)
    assert [(r.phase, r.folder, r.other_phase, r.line) for r in refs] == [
        ("2", "services/api", "2", 11), ("2", "libs/money", "3.1", 11)]
    assert refs[0].label() == "phase 2 of services/api"
    assert [(r.folder, r.other_phase) for r in refs_of(ROADMAP, "02")] == [("services/api", "2"), ("libs/money", "3.1")]
    assert refs_of(ROADMAP, "1") == []


def test_plain_lines_and_own_phases_are_not_references():
    text = "### Phase 3: X\nDepends on: Phase 2\n- Depends on: Phase 1 of apps/web.\n"
    assert [(r.phase, r.folder, r.other_phase) for r in cross_refs(text)] == [("3", "apps/web", "1")]
    assert cross_refs(None) == [] and cross_refs("") == []


@pytest.mark.parametrize("name", ["../x", "a/../../b", "/etc", "~/p", "C:/x", "a\\b", "a\x00b", "x" * 301])
def test_a_folder_name_that_could_leave_the_work_tree_is_refused(name, tmp_path):
    assert folder_of(tmp_path, name) is None


def test_a_folder_name_under_the_top(tmp_path):
    assert folder_of(tmp_path, "services/api") == tmp_path / "services" / "api"
    assert folder_of(tmp_path, ".") == Path(tmp_path)
    assert folder_of(tmp_path, "./apps//web") == tmp_path / "apps" / "web"
