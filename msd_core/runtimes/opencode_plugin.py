"""msd's guard in OpenCode: a plugin file of ours, `plugins/msd-guard.js` in the install's folder
(`.opencode/`, globally `~/.config/opencode/`), since OpenCode runs no command hooks.

Read in the real OpenCode 1.18.33 (its bundled config docs and loader; tests/runtimes/
test_opencode_guard_cli.py): every `*.js`/`*.ts` file in a config folder's `plugin/` or `plugins/`
is loaded without a config entry; each export must be a function `(ctx) => hooks`, `ctx.directory`
the session's folder; the hook `tool.execute.before(input, output)` runs before every tool call with
`input.tool` and `output.args`, and an error it throws stops the call, its message being the tool
result the model gets. The file imports nothing of OpenCode's (only Node's `child_process`, part of
the runtime), so it loads offline. OpenCode itself, before it loads any plugin, waits for its own
`npm install @opencode-ai/plugin` into each config folder (`.opencode/node_modules`, 64 MB, a
package.json, and a .gitignore of its own for them); with no registry in reach that wait is npm's retries (76 s a start here, 7 s
with `npm_config_fetch_retries=0`), then the plugin loads and runs.

The plugin runs `msd_run hook opencode-pre-tool-use --root <install>` (msd_core/hooks/opencode.py)
with `{"tool", "args", "cwd", "session_id"}` on stdin and refuses the call with msd's reason; only for
the tools msd's guard judges (CHECKED, written into the file), so the others cost no process. When
msd cannot check a call (msd_run does not start, fails, or gives no answer within TIMEOUT_S) the call
is refused too, with the cause and the way forward: a guard that went quiet would let secrets
through unseen, and the failure shows at the first tool call; `MSD_GUARDS=off` in OpenCode's
environment lets calls go without msd's guards (msd_run reads the same setting).
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from msd_core.paths import Target

PLUGIN_REL = "plugins/msd-guard.js"
EVENT = "opencode-pre-tool-use"
CHECKED = ["apply_patch", "bash", "edit", "grep", "read", "write"]  # hooks/opencode.JUDGED (a test ties them)
TIMEOUT_S = 30  # msd_run refuses a check held up past guard_server.CALL_DEADLINE (10 s) itself

_SOURCE = """\
// msd-core's guard for OpenCode, written by `msd install --runtime opencode` (`msd uninstall` removes it).
// Before each tool call it asks `msd_run hook opencode-pre-tool-use` and stops a call msd refuses,
// with msd's reason. A call msd cannot check is stopped too; MSD_GUARDS=off lets calls go unchecked.
import { spawn } from "node:child_process"

const COMMAND = __COMMAND__
const CHECKED = new Set(__TOOLS__)  // the tools msd's guard judges; no process for the others
const TIMEOUT_MS = __TIMEOUT_MS__

function check(payload, cwd) {
  return new Promise((resolve) => {
    let out = ""
    let err = ""
    let settled = false
    let timer
    const settle = (result) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(result)
    }
    let child
    try {
      child = spawn(COMMAND[0], COMMAND.slice(1), { cwd, stdio: ["pipe", "pipe", "pipe"] })
    } catch (e) {
      settle({ problem: String(e && e.message || e) })
      return
    }
    timer = setTimeout(() => {
      child.kill("SIGKILL")
      settle({ problem: `no answer within ${TIMEOUT_MS / 1000} s` })
    }, TIMEOUT_MS)
    child.stdout.on("data", (chunk) => { out += chunk })
    child.stderr.on("data", (chunk) => { err += chunk })
    child.on("error", (e) => settle({ problem: e && e.code === "ENOENT" ? `${COMMAND[0]} was not found` : String(e && e.message || e) }))
    child.on("close", (code) => {
      const last = err.trim().split("\\n").pop()
      settle(code === 0 ? { out } : { problem: `${COMMAND[0]} ended with exit code ${code}${last ? ": " + last : ""}` })
    })
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

function verdict(text) {
  if (!text.trim()) return null
  try {
    const answer = JSON.parse(text)
    return answer && answer.decision === "deny" ? String(answer.reason) : null
  } catch (e) {
    return `msd guard: msd_run's answer could not be read (${text.trim().slice(0, 200)}), so this call is refused.`
  }
}

export const MsdGuard = async ({ directory }) => ({
  "tool.execute.before": async (input, output) => {
    if (!CHECKED.has(input.tool)) return
    if (["off", "0", "false", "no"].includes(String(process.env.MSD_GUARDS || "").trim().toLowerCase())) return
    const payload = { tool: input.tool, args: output.args, cwd: directory, session_id: input.sessionID }
    const result = await check(payload, directory)
    if (result.problem) {
      throw new Error(`msd guard: this call is refused because msd could not check it (${result.problem}). ` +
        "Tell the user: msd_run must be on OpenCode's PATH (msd-core's runner), or run `msd install --runtime opencode` again; " +
        "to work without msd's guards, start OpenCode with MSD_GUARDS=off.")
    }
    const reason = verdict(result.out)
    if (reason) throw new Error(reason)
  },
})
"""


def plugin_file(target: Target) -> bytes:
    """The plugin's text for this install: the command base.guard_command names (globally the runner
    beside this msd and the absolute root; locally `msd_run` by name and the root in the project)."""
    from msd_core.runtimes.base import guard_command

    words = shlex.split(guard_command(EVENT, target.config, target.scope == "local"))
    text = (_SOURCE.replace("__COMMAND__", json.dumps(words, ensure_ascii=False)).replace("__TOOLS__", json.dumps(CHECKED))
            .replace("__TIMEOUT_MS__", str(TIMEOUT_S * 1000)))
    return text.encode("utf-8")


def matcher(tools) -> str:
    """The tools the plugin asks msd about, as `msd status` compares a hook's matcher (`^(a|b)$`)."""
    return "^(" + "|".join(tools) + ")$"


def _read(data: bytes, path: Path):
    """A file on disk a person may have edited: its lists are parsed through the one bounded reader.
    {"command": its shell words joined, "matcher": matcher(its tools)} of msd's plugin text, {} for a
    file that is not msd's plugin (no COMMAND line), or (None, why it does not parse): read_for_add's parse."""
    from msd_core.files.bounded import loads_json

    try:
        lines = data.decode("utf-8").splitlines()
        found = {ln.split(" = ", 1)[0][6:]: ln.split(" = ", 1)[1] for ln in lines
                 if ln.startswith(("const COMMAND = ", "const CHECKED = "))}
        if "COMMAND" not in found:
            return {}, None
        words = loads_json(found["COMMAND"], f"{path}'s COMMAND")
        tools = loads_json(found.get("CHECKED", "new Set([])").split("new Set(", 1)[1].split(")", 1)[0], f"{path}'s CHECKED")
    except (UnicodeDecodeError, ValueError, IndexError) as exc:
        return None, f"{path} does not parse ({str(exc)[:120]})"
    if not (isinstance(words, list) and all(isinstance(w, str) for w in words) and isinstance(tools, list)):
        return None, f"{path} does not parse (its COMMAND or CHECKED is not a list of names)"
    return {"command": shlex.join(words), "matcher": matcher(str(t) for t in tools)}, None


def find_guard(config) -> tuple[Path, dict | None, str | None]:
    """Where msd's plugin is now (`msd status`; never writes): (its file, what it runs or None, why the file
    cannot be read)."""
    from msd_core.runtimes.config_entry import read_to_look

    path = Path(config) / PLUGIN_REL
    obj, problem = read_to_look(config, PLUGIN_REL, _read)
    return path, (obj or None) if problem is None else None, problem
