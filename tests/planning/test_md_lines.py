"""The one reader of a planning file's prose lines: fences (``` and ~~~) and, when asked,
`<details>` blocks left out; every reader that skips examples goes through it."""

from __future__ import annotations

from msd_core.planning.md_lines import live_lines, prose_lines
from msd_core.planning.roadmap import checkbox_lines, listed_twice, roadmap_phases
from msd_core.planning.roadmap_edit import renumber_text

ROADMAP = """# Roadmap

- [ ] **Phase 1: Core** - the core
~~~markdown
- [ ] **Phase 9: Example** - an example in a tilde fence
~~~
```
- [ ] **Phase 8: Another** - an example in a backtick fence
```
<details>
<summary>v1.0</summary>

- [x] **Phase 0: Old** - shipped
</details>
- [ ] **Phase 2: Next** - the next
"""


def test_prose_lines_numbers_from_one_and_skips_both_fences():
    got = dict(prose_lines(ROADMAP))
    assert got[3] == "- [ ] **Phase 1: Core** - the core"
    assert not any("Example" in line or "Another" in line for line in got.values())
    assert not any(line.startswith(("~~~", "```")) for line in got.values())


def test_details_blocks_kept_unless_asked():
    kept = [line for _, line in prose_lines(ROADMAP)]
    assert any("Phase 0: Old" in line for line in kept)
    skipped = [line for _, line in prose_lines(ROADMAP, skip_details=True)]
    assert not any("Phase 0" in line or "details>" in line or "summary" in line for line in skipped)
    assert any("Phase 2: Next" in line for line in skipped)


def test_live_lines_indexes_are_zero_based_positions_in_the_list():
    lines = ROADMAP.splitlines()
    for i, line in live_lines(lines, skip_details=True):
        assert lines[i] == line


def test_a_details_tag_inside_a_fence_does_not_open_a_block():
    text = "```\n<details>\n```\n- [ ] **Phase 3: After** - x\n"
    assert [c.key for c in checkbox_lines(text)] == ["3"]


def test_roadmap_readers_ignore_phases_in_any_fence():
    assert [p.number for p in roadmap_phases(ROADMAP)] == ["0", "1", "2"]
    assert [c.key for c in checkbox_lines(ROADMAP)] == ["1", "2"]
    twice = ROADMAP + "~~~\n- [ ] **Phase 1: Clash** - example only\n~~~\n"
    assert listed_twice(twice) == {}
    assert listed_twice(ROADMAP + "- [ ] **Phase 1: Clash** - a real second phase 1\n") == {"1": ["Core", "Clash"]}


def test_renumbering_leaves_fenced_examples_alone():
    out = renumber_text(ROADMAP, {"2": "3"})
    assert "**Phase 3: Next**" in out
    assert "Phase 9: Example" in out and "Phase 8: Another" in out
