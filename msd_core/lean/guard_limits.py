"""What msd's guards take from the host, the same for both transports: the command hook
(`msd_run hook pre-tool-use`, hooks/payload.py) and the guard server (hooks/guard_server.py).

- WRITE_TOOLS: every tool of Claude Code 2.1.332 that writes a file, with the input key naming
  the file (the host's own list of file-editing tools is these four; its model is offered Write,
  Edit and NotebookEdit, and MultiEdit is still a name its permission rules and hooks know).
- MAX_DOCUMENT: the most a `.planning/` document may hold after a guarded write, and the most
  the guard reads of one. A write leaving more is refused by both transports.
- MAX_MESSAGE: the most either transport reads of one call (the hook's stdin, the server's
  line). A write of MAX_DOCUMENT characters fits with room to spare: the server's line carries the
  tool input as JSON text inside JSON (each character escaped twice, at most 7 bytes for a control
  character). A call larger still is read by neither, and goes ahead in both.
"""

WRITE_TOOLS = {"Write": "file_path", "Edit": "file_path", "MultiEdit": "file_path", "NotebookEdit": "notebook_path"}
MAX_DOCUMENT = 4 << 20
MAX_MESSAGE = 8 * MAX_DOCUMENT + (1 << 20)
