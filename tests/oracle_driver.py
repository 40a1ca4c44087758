"""Run by the oracle's own interpreter (mci-py 1.2 in its venv): executes calls, each
through a fresh MCIClient (mci-py mutates a tool's config on its first call), and prints
their results as JSON.

Batch mode (no arguments):
    stdin: {"schema": PATH, "calls": [{"tool": NAME, "props": {...}, "env": {...}}],
            "shared_client": false}
    stdout: [{"result": {...}} | {"exception": "..."}]
    With "shared_client" every call goes through one client (made with the first
    call's env), to show what its first call leaves behind.

Persistent mode (``--serve``): one JSON request per stdin line, one JSON answer per
stdout line, until stdin closes. Requests:
    {"op": "call", "schema": PATH, "tool": NAME, "props": {...}, "env": {...}}
        -> {"result": {...}} | {"exception": "..."}
    {"op": "batch", "schema": PATH, "calls": [...]}
        -> {"answers": [...]}            (as in batch mode)
    {"op": "render", "text": TEXT, "props": {...}, "env": {...}}
        -> {"result": {...}} | {"exception": "..."}
           (TEXT becomes the only tool, a text tool without inputSchema, of a
           temporary schema, executed through MCIClient like any other call)
A request the driver cannot read gets {"protocol_error": "..."}.
"""

import json
import os
import sys
import tempfile
from typing import Any

from mcipy import MCIClient

RENDER_TOOL = "render"


def execute(schema: str, tool: str, props: Any, env: Any) -> dict[str, Any]:
    try:
        client = MCIClient(schema_file_path=schema, env_vars=env)
        result = client.execute(tool, props)
        return {"result": result.result.model_dump(mode="json")}
    except Exception as error:  # the oracle's failure is data for the comparison
        return {"exception": f"{type(error).__name__}: {error}"}


def run_batch(request: dict[str, Any]) -> list[dict[str, Any]]:
    calls = request["calls"]
    if not request.get("shared_client") or not calls:
        return [
            execute(request["schema"], c["tool"], c["props"], c["env"]) for c in calls
        ]
    client = MCIClient(schema_file_path=request["schema"], env_vars=calls[0]["env"])
    return [
        {"result": client.execute(c["tool"], c["props"]).result.model_dump(mode="json")}
        for c in calls
    ]


def main() -> None:
    json.dump(run_batch(json.load(sys.stdin)), sys.stdout)


def serve() -> None:
    # Answers go to a private copy of stdout, so that anything mci-py prints cannot
    # interleave with them.
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding="utf-8")
    sys.stdout = sys.stderr
    scratch = tempfile.mkdtemp(prefix="mci-oracle-")
    render_schema = os.path.join(scratch, "render.mci.json")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            op = request["op"]
            if op == "call":
                answer: dict[str, Any] = execute(
                    request["schema"],
                    request["tool"],
                    request.get("props", {}),
                    request.get("env", {}),
                )
            elif op == "batch":
                answer = {"answers": run_batch(request)}
            elif op == "render":
                document = {
                    "schemaVersion": "1.0",
                    "tools": [
                        {
                            "name": RENDER_TOOL,
                            "execution": {"type": "text", "text": request["text"]},
                        }
                    ],
                }
                with open(render_schema, "w", encoding="utf-8") as handle:
                    json.dump(document, handle)
                answer = execute(
                    render_schema,
                    RENDER_TOOL,
                    request.get("props", {}),
                    request.get("env", {}),
                )
            else:
                answer = {"protocol_error": f"unknown op {op!r}"}
        except (ValueError, KeyError, TypeError) as error:
            answer = {"protocol_error": f"{type(error).__name__}: {error}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        main()
