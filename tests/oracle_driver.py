"""Run by the oracle's own interpreter (mci-py 1.2 in its venv): executes a batch of
calls, each through a fresh MCIClient, and prints their results as JSON.

stdin: {"schema": PATH, "calls": [{"tool": NAME, "props": {...}, "env": {...}}]}
stdout: [{"result": {...}} | {"exception": "..."}]
"""

import json
import sys

from mcipy import MCIClient


def main() -> None:
    request = json.load(sys.stdin)
    answers = []
    for call in request["calls"]:
        try:
            client = MCIClient(schema_file_path=request["schema"], env_vars=call["env"])
            result = client.execute(call["tool"], call["props"])
            answers.append({"result": result.result.model_dump(mode="json")})
        except Exception as error:  # the oracle's failure is data for the comparison
            answers.append({"exception": f"{type(error).__name__}: {error}"})
    json.dump(answers, sys.stdout)


main()
