"""A simulated msd-executor, run as its own process by the execution tests.

argv[1] is JSON: {plan, files, tasks, start_at, tag, summary, delay}. For task i it writes
every file of the plan (a line "<tag> task i"), stages one of them by hand first (like an
agent that ran `git add`), and commits the files through `msd_run commit --plan --task`;
then it writes and commits the plan's SUMMARY. The process exits with the first
failing msd_run exit code.
"""

import json
import subprocess
import sys
import time
from pathlib import Path


def msd(*args):
    return subprocess.run([sys.executable, "-m", "msd_core.run", *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def main() -> int:
    spec = json.loads(sys.argv[1])
    if spec.get("start_at"):
        time.sleep(max(0.0, spec["start_at"] - time.time()))
    plan = Path(spec["plan"])
    pid = plan.name[: -len("-PLAN.md")]
    for i in range(1, spec["tasks"] + 1):
        for rel in spec["files"]:
            p = Path(rel)
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(p, "a", encoding="utf-8") as fh:
                fh.write(f"{spec['tag'] or pid} task {i}\n")
        subprocess.run(["git", "add", "--", spec["files"][0]], capture_output=True, timeout=60)
        if spec.get("delay"):
            time.sleep(spec["delay"])
        r = msd("commit", "--plan", str(plan), "--task", str(i), "-m", f"feat({pid}): task {i}", "--files", *spec["files"])
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return r.returncode
    if spec.get("summary"):
        summary = Path(".planning") / "phases" / plan.parent.name / f"{pid}-SUMMARY.md"
        summary.parent.mkdir(parents=True, exist_ok=True)
        summary.write_text(f"---\nphase: {plan.parent.name}\nplan: {pid}\n---\n# {pid} done\n")
        r = msd("commit", "--plan", str(plan), "-m", f"docs({pid}): complete plan", "--files", str(summary))
        if r.returncode != 0:
            sys.stderr.write(r.stderr)
            return r.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
